/* cml-expr-print-number.c — the text of a number in a printed expression: an integer
 * without a decimal point, a very short decimal, a fraction p/q with a small q that reads
 * back exactly, a decimal of up to 8 characters that reads back exactly, else %.15g (or
 * %.17g where the printer asks for every digit); the conventions at the top of
 * cml-expr-print.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-expr-print"

#include "cml-expr-print-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static gint64
gcd (gint64 a,
     gint64 b)
{
  while (b != 0)
    {
      gint64 t = a % b;

      a = b;
      b = t;
    }
  return a;
}

/* How to write the non-negative number V: an integer; "pi"; a very short decimal
 * ("0.5", "0.25"); a fraction p/q with q <= 12 that reads back exactly ("1/3"); a short
 * exact decimal ("0.125", "9.81"); a fraction with q <= 1000; else %.15g. */
void
cml_expr_number_text (double   v,
             gboolean exact,
             NumText *nt)
{
  gint64 p = 0, q = 0;

  memset (nt, 0, sizeof *nt);

  if (!isfinite (v))
    {
      g_strlcpy (nt->text, isnan (v) ? "nan" : "inf", sizeof nt->text);
      return;
    }
  if (v == floor (v) && v < 1e15)
    {
      nt->rational = TRUE;
      nt->p = (gint64) v;
      nt->q = 1;
      nt->exact_div = nt->exact_split = TRUE;
      return;
    }
  if (v == G_PI)
    {
      g_strlcpy (nt->text, "pi", sizeof nt->text);
      return;
    }

  /* a very short exact decimal: "0.5", "2.5", "0.25" */
  g_ascii_formatd (nt->text, sizeof nt->text, "%.15g", v);
  if (strlen (nt->text) <= 4 && g_ascii_strtod (nt->text, NULL) == v)
    return;

  /* the simplest fraction that reads back exactly: "p/q" parses to p/q rounded, and
   * "p*x/q" to p*(1/q) rounded */
  for (gint64 k = 2; k <= 1000; k++)
    {
      double pk = nearbyint (v * (double) k);

      if (pk >= 1.0 && pk < 1e15 && gcd ((gint64) pk, k) == 1)
        {
          nt->exact_div = pk / (double) k == v;
          nt->exact_split = pk * (1.0 / (double) k) == v;
          if (nt->exact_div || nt->exact_split)
            {
              p = (gint64) pk;
              q = k;
              break;
            }
        }
    }
  g_ascii_formatd (nt->text, sizeof nt->text, "%.15g", v);
  if (exact && g_ascii_strtod (nt->text, NULL) != v)
    g_ascii_formatd (nt->text, sizeof nt->text, "%.17g", v);
  if (q != 0 && q <= 12)
    goto fraction;

  if (strlen (nt->text) <= 8 && g_ascii_strtod (nt->text, NULL) == v)
    {
      nt->exact_div = nt->exact_split = FALSE;
      return;
    }
  if (q != 0)
    goto fraction;
  return;

fraction:
  nt->rational = TRUE;
  nt->p = p;
  nt->q = q;
}

/* number_text, but for reading: a fraction with a small denominator rather than a
 * decimal ("m/2", not "0.5*m"). */
void
cml_expr_number_text_pr (const Printer *pr,
                double         v,
                NumText       *nt)
{
  cml_expr_number_text (v, pr->exact > 0, nt);
  if (!pr->pretty || nt->rational || !isfinite (v) || v == G_PI)
    return;
  for (gint64 k = 2; k <= 12; k++)
    {
      double pk = nearbyint (v * (double) k);

      if (pk >= 1.0 && pk < 1e15 && gcd ((gint64) pk, k) == 1 && pk / (double) k == v)
        {
          nt->rational = TRUE;
          nt->p = (gint64) pk;
          nt->q = k;
          nt->exact_div = nt->exact_split = TRUE;
          return;
        }
    }
}

void
cml_expr_append_int (GString *s,
            gint64   v)
{
  g_string_append_printf (s, "%" G_GINT64_FORMAT, v);
}

/* Appends the number as "p/q" or decimal text. */
void
cml_expr_append_number_text (GString       *s,
                    const NumText *nt)
{
  if (nt->rational && nt->exact_div)
    {
      cml_expr_append_int (s, nt->p);
      if (nt->q != 1)
        {
          g_string_append_c (s, '/');
          cml_expr_append_int (s, nt->q);
        }
    }
  else
    g_string_append (s, nt->text);
}
