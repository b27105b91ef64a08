/* cml-plot-axis.c — an axis: its label and unit, range and auto-scaling,
 * "nice" ticks and their labels, and how a quantity's unit is written.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-private.h"
#include "cml-expr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== axes ============================================================================= */

CmlPlotAxis *
cml_plot_axis_new (const char *label, const char *unit)
{
  CmlPlotAxis *axis = g_new0 (CmlPlotAxis, 1);
  axis->label = g_strdup (label ? label : "");
  axis->unit = g_strdup (unit ? unit : "");
  axis->min = 0;
  axis->max = 1;
  axis->auto_scale = TRUE;
  axis->padding = 0.05;
  return axis;
}

void
cml_plot_axis_free (CmlPlotAxis *axis)
{
  if (axis == NULL)
    return;
  g_free (axis->label);
  g_free (axis->unit);
  g_free (axis);
}

void
cml_plot_axis_set_label (CmlPlotAxis *axis, const char *label, const char *unit)
{
  g_return_if_fail (axis != NULL);
  g_free (axis->label);
  g_free (axis->unit);
  axis->label = g_strdup (label ? label : "");
  axis->unit = g_strdup (unit ? unit : "");
}

const char *
cml_plot_axis_get_label (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, NULL);
  return axis->label;
}

const char *
cml_plot_axis_get_unit (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, NULL);
  return axis->unit;
}

char *
cml_plot_axis_dup_title (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, NULL);
  return cml_plot_label_with_unit (axis->label, axis->unit);
}

void
cml_plot_axis_set_range (CmlPlotAxis *axis, double min, double max)
{
  g_return_if_fail (axis != NULL);
  g_return_if_fail (max > min);
  axis->min = min;
  axis->max = max;
  axis->auto_scale = FALSE;
}

void
cml_plot_axis_get_range (const CmlPlotAxis *axis, double *min, double *max)
{
  g_return_if_fail (axis != NULL);
  if (min)
    *min = axis->min;
  if (max)
    *max = axis->max;
}

void
cml_plot_axis_set_auto_scale (CmlPlotAxis *axis, gboolean auto_scale)
{
  g_return_if_fail (axis != NULL);
  axis->auto_scale = !!auto_scale;
  axis->have_range = FALSE;
}

gboolean
cml_plot_axis_get_auto_scale (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, FALSE);
  return axis->auto_scale;
}

void
cml_plot_axis_set_padding (CmlPlotAxis *axis, double fraction)
{
  g_return_if_fail (axis != NULL);
  axis->padding = MAX (fraction, 0.0);
}

/* A step of the form m × 10^e with m in {1, 2, 5}. */
typedef struct
{
  int m, e;
} NiceStep;

static NiceStep
nice_step (double span, guint max_intervals)
{
  double raw = span / MAX (max_intervals, 1u);
  if (!(raw > 0) || !isfinite (raw))
    return (NiceStep) { 1, 0 };
  int e = (int) floor (log10 (raw));
  double f = raw / pow (10.0, e);
  /* f in [1, 10) up to rounding; the tolerance keeps 0.2 at 0.2 */
  NiceStep s;
  if (f <= 1.0 + 1e-9)
    s = (NiceStep) { 1, e };
  else if (f <= 2.0 + 1e-9)
    s = (NiceStep) { 2, e };
  else if (f <= 5.0 + 1e-9)
    s = (NiceStep) { 5, e };
  else
    s = (NiceStep) { 1, e + 1 };
  return s;
}

/* k · m · 10^e, correctly rounded (one rounding: an exact integer times or divided by an
 * exact power of ten). */
static double
nice_value (double k, NiceStep s)
{
  double km = k * s.m;
  if (s.e >= 0)
    return km * pow (10.0, s.e);
  if (s.e >= -22) /* 10^22 is the largest power of ten a double holds exactly */
    return km / pow (10.0, -s.e);
  return km * pow (10.0, s.e);
}

static double
nice_step_value (NiceStep s)
{
  return nice_value (1, s);
}

double
cml_plot_nice_step (double span, guint max_intervals)
{
  return nice_step_value (nice_step (span, max_intervals));
}

void
cml_plot_axis_fit (CmlPlotAxis *axis, double data_min, double data_max, gboolean reset)
{
  g_return_if_fail (axis != NULL);

  if (!axis->auto_scale)
    return;
  if (reset)
    axis->have_range = FALSE;
  if (!isfinite (data_min) || !isfinite (data_max) || data_min > data_max)
    return;

  /* a flat quantity gets a span of 2·10⁻³ of its size (±0.1 %), zero [−1, 1]: a constant
   * 7.05 swept over a parameter, or a conserved energy, is drawn as the flat line it is
   * (7.04 … 7.06), not as rounding noise blown up to fill the plot (7.049996 … 7.050004) */
  double mag = MAX (fabs (data_min), fabs (data_max));
  if (mag == 0)
    {
      if (!axis->have_range || axis->min > 0 || axis->max < 0)
        {
          axis->min = -1;
          axis->max = 1;
          axis->have_range = TRUE;
        }
      return;
    }
  /* (exactly constant: a single sample, or a quantity that does not move at all, gets
   * room to show where it is, ±10 %) */
  double min_span = data_max == data_min ? mag * 0.2 : mag * 2e-3;
  if (data_max - data_min < min_span)
    {
      double mid = 0.5 * (data_min + data_max);
      data_min = mid - 0.5 * min_span;
      data_max = mid + 0.5 * min_span;
    }

  /* keep the current range while the data fit and fill a third of it */
  if (axis->have_range && data_min >= axis->min && data_max <= axis->max &&
      (data_max - data_min) >= (axis->max - axis->min) / 3)
    return;

  double pad = axis->padding * (data_max - data_min);
  double lo = data_min - pad, hi = data_max + pad;
  NiceStep s = nice_step (hi - lo, 20);
  double step = nice_step_value (s);
  double new_min = nice_value (floor (lo / step), s);
  double new_max = nice_value (ceil (hi / step), s);
  /* positive data do not get a negative margin (a residual, a norm): zero is the edge
   * (data exactly at zero keep their margin, or the axis line would hide them) */
  if (data_min > 0 && lo < 0)
    new_min = 0;
  if (data_max < 0 && hi > 0)
    new_max = 0;
  if (!(new_max > new_min))
    {
      new_min = lo;
      new_max = hi;
    }
  axis->min = new_min;
  axis->max = new_max;
  axis->have_range = TRUE;
}

double
cml_plot_axis_fraction (const CmlPlotAxis *axis, double value)
{
  g_return_val_if_fail (axis != NULL, 0);
  return (value - axis->min) / (axis->max - axis->min);
}

static void
append_superscript (GString *s, int n)
{
  static const char *const digits[10] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  char buf[16];
  g_snprintf (buf, sizeof buf, "%d", n);
  for (const char *p = buf; *p; p++)
    g_string_append (s, *p == '-' ? "⁻" : digits[*p - '0']);
}

double
cml_plot_round_to_resolution (double value, double res)
{
  if (!(res > 0) || !isfinite (res))
    return value;
  double scale = pow (10.0, ceil (-log10 (res)));
  double r = round (value * scale) / scale;
  return isfinite (r) ? r : value;
}

void
cml_plot_format_tick (double value, double step, double max_abs, char *buf, gsize size)
{
  g_return_if_fail (buf != NULL && size > 0);

  if (value == 0 || !isfinite (value) || !(step > 0))
    {
      g_snprintf (buf, size, isfinite (value) ? "0" : "%g", value);
      return;
    }

  g_autoptr (GString) s = g_string_new (NULL);
  int e_step = (int) floor (log10 (step) + 1e-9);
  gboolean sci = max_abs >= 1e5 || max_abs < 1e-3;
  char num[64];

  if (sci)
    {
      /* one exponent for the axis, from its largest tick */
      int e = (int) floor (log10 (MAX (max_abs, step)) + 1e-9);
      int decimals = MAX (0, e - e_step);
      /* the mantissa m·10^(e−e_step) is an integer times 10^-decimals */
      double mant = value / pow (10.0, e);
      g_snprintf (num, sizeof num, "%.*f", decimals, fabs (mant));
      if (value < 0)
        g_string_append (s, "−");
      g_string_append (s, num);
      g_string_append (s, "×10");
      append_superscript (s, e);
    }
  else
    {
      int decimals = MAX (0, -e_step);
      g_snprintf (num, sizeof num, "%.*f", decimals, fabs (value));
      if (value < 0)
        g_string_append (s, "−");
      g_string_append (s, num);
    }
  g_strlcpy (buf, s->str, size);
}

/* The ticks of the range [MIN, MAX] (an axis' own, or the wider one of equal scales). */
guint
cml_plot_ticks_for_range (double min, double max, guint max_intervals, CmlPlotTick *ticks,
                 guint n_max, double *step_out)
{
  double span = max - min;
  if (!(span > 0) || !isfinite (span))
    return 0;

  NiceStep s = nice_step (span, max_intervals);
  double step = nice_step_value (s);
  double eps = 1e-9 * step;
  double k0 = ceil ((min - eps) / step);
  double k1 = floor ((max + eps) / step);
  double max_abs = MAX (fabs (nice_value (k0, s)), fabs (nice_value (k1, s)));
  guint n = 0;

  if (step_out)
    *step_out = step;
  for (double k = k0; k <= k1 && n < n_max; k++)
    {
      ticks[n].value = nice_value (k, s);
      cml_plot_format_tick (ticks[n].value, step, max_abs, ticks[n].label,
                            sizeof ticks[n].label);
      n++;
    }
  return n;
}

guint
cml_plot_axis_ticks (const CmlPlotAxis *axis, guint max_intervals, CmlPlotTick *ticks,
                     guint n_max, double *step_out)
{
  g_return_val_if_fail (axis != NULL, 0);
  g_return_val_if_fail (n_max == 0 || ticks != NULL, 0);
  return cml_plot_ticks_for_range (axis->min, axis->max, max_intervals, ticks, n_max, step_out);
}

/* ---- units and quantity labels --------------------------------------------------- */

gboolean
cml_plot_unit_is_dimensional (const char *unit)
{
  if (unit == NULL)
    return FALSE;
  while (g_ascii_isspace (*unit))
    unit++;
  return unit[0] != '\0' && strcmp (unit, "1") != 0 && strcmp (unit, "-") != 0 &&
         strcmp (unit, "–") != 0;
}

char *
cml_plot_format_unit (const char *unit)
{
  if (!cml_plot_unit_is_dimensional (unit))
    return g_strdup ("");

  GString *s = g_string_new (NULL);
  for (const char *c = unit; *c; )
    {
      if (*c == '^')
        {
          /* an integer exponent as superscript; anything else stays as written */
          char *end;
          long e = strtol (c + 1, &end, 10);
          if (end != c + 1 && (end[0] == '\0' || !g_ascii_isalnum (end[0])) && e > -100 && e < 100)
            {
              append_superscript (s, (int) e);
              c = end;
              continue;
            }
        }
      if (*c == '*')
        g_string_append (s, "·");
      else if (*c == ' ')
        {
          /* "J s" is a product, J·s: never "Js" (and "m s" never "ms", a millisecond) */
          while (c[1] == ' ')
            c++;
          if (s->len > 0 && c[1] != '\0' && c[1] != '/' && c[1] != ')' && s->str[s->len - 1] != '('
              && !g_str_has_suffix (s->str, "/") && !g_str_has_suffix (s->str, "·"))
            g_string_append (s, "·");
        }
      else
        g_string_append_c (s, *c);
      c++;
    }
  return g_string_free (s, FALSE);
}

/* A quantity's name as the equations write it ("x1" → "x₁", "rho" → "ρ"); other labels
 * ("energy, pr", a title) as they are. */
static char *
pretty_label (const char *label)
{
  gboolean identifier = g_ascii_isalpha (label[0]);

  for (const char *c = label; *c && identifier; c++)
    identifier = g_ascii_isalnum (*c);
  return identifier ? cml_expr_pretty_name (label, FALSE) : g_strdup (label);
}

char *
cml_plot_label_with_unit (const char *label, const char *unit)
{
  g_autofree char *u = cml_plot_format_unit (unit);
  g_autofree char *name = pretty_label (label);

  if (u[0] != '\0' && name[0] != '\0')
    return g_strdup_printf ("%s [%s]", name, u);
  /* an axis of several quantities too long to name still says its unit */
  if (u[0] != '\0')
    return g_strdup_printf ("[%s]", u);
  return g_steal_pointer (&name);
}

void
cml_plot_append_quantity (GString *s, const char *name, double value, const char *unit)
{
  g_return_if_fail (s != NULL && name != NULL);

  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *u = cml_plot_format_unit (unit);
  /* as the equations write it: "Omega1" → "Ω₁", "k2" → "k₂" */
  g_autofree char *symbol = cml_expr_pretty_name (name, FALSE);

  g_string_append (s, symbol);
  g_string_append (s, " = ");
  /* four significant digits, no exponent for everyday sizes */
  g_ascii_formatd (num, sizeof num, "%.4g", fabs (value) < 1e-300 ? 0.0 : value);
  if (num[0] == '-')
    g_string_append (s, "−");
  g_string_append (s, num[0] == '-' ? num + 1 : num);
  if (u[0] != '\0')
    g_string_append_printf (s, " %s", u);
}
