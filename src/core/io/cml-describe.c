/* cml-describe.c — a readable account of a system: kind, algebroid, Lagrangian,
 * constraints, derived equations, regularity, invariants and the constraint algorithm's
 * steps, plain (parses back) or typeset for reading.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"
#include "cml-conserved.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* ---- a readable account ------------------------------------------------------------ */

/* The text of E: plain (parses back) or typeset for reading (cml_expr_print_pretty). */
static char *
expr_text (CmlSystem *sys, CmlExpr *e, gboolean pretty)
{
  if (pretty)
    {
      /* the model's own named quantities (kappa, Omega(t) …) where they shorten the text */
      GPtrArray *defs = sys->model->definitions;
      guint n = defs ? defs->len : 0;
      g_autofree const char **names = g_new0 (const char *, n + 1);
      g_autofree CmlExpr **exprs = g_new0 (CmlExpr *, n + 1);

      for (guint k = 0; k < n; k++)
        {
          names[k] = ((CmlNamedExpr *) defs->pdata[k])->name;
          exprs[k] = ((CmlNamedExpr *) defs->pdata[k])->expr;
        }
      return cml_sys_drop_unit_factors (cml_expr_print_pretty_named (sys->ctx, e, DESCRIBE_MAX_CHARS, n, names, exprs),
                                TRUE);
    }
  return cml_sys_drop_unit_factors (cml_expr_to_string_max (sys->ctx, e, DESCRIBE_MAX_CHARS), FALSE);
}

static char *
name_text (const char *name, gboolean pretty)
{
  return pretty ? cml_expr_pretty_name (name, FALSE) : g_strdup (name);
}

/* "e3", "-e3", "2*e3", "(x1 + 1)*e3": a coefficient times a basis name, for sums
 * (readable: "e₃", "−e₃", "2e₃", "(x₁ + 1) e₃") */
static void
append_term (GString *s, CmlSystem *sys, CmlExpr *coef, const char *basis, gboolean pretty)
{
  double c;
  g_autofree char *t = expr_text (sys, coef, pretty);
  gboolean first = s->len == 0;
  const char *minus = pretty ? "−" : "-", *times = pretty ? " " : "*";
  g_autofree char *plus_sep = g_strdup (" + ");
  g_autofree char *minus_sep = g_strdup_printf (" %s ", minus);
  gsize mlen = pretty ? strlen ("−") : 1;

  if (cml_expr_is_number (coef, &c))
    {
      if (c == 1)
        g_string_append_printf (s, "%s%s", first ? "" : plus_sep, basis);
      else if (c == -1)
        g_string_append_printf (s, "%s%s", first ? minus : minus_sep, basis);
      else if (c < 0)
        g_string_append_printf (s, "%s%s%s%s", first ? minus : minus_sep, t + mlen, times, basis);
      else
        g_string_append_printf (s, "%s%s%s%s", first ? "" : plus_sep, t, times, basis);
      return;
    }
  /* a plain name or a product needs no parentheses */
  gboolean neg = strncmp (t, minus, mlen) == 0;
  gboolean simple = strstr (t + (neg ? mlen : 0), " ") == NULL && strpbrk (t + (neg ? mlen : 0), "+-") == NULL;
  if (simple && neg)
    g_string_append_printf (s, "%s%s%s%s", first ? minus : minus_sep, t + mlen, times, basis);
  else if (simple)
    g_string_append_printf (s, "%s%s%s%s", first ? "" : plus_sep, t, times, basis);
  else
    g_string_append_printf (s, "%s(%s)%s%s", first ? "" : plus_sep, t, times, basis);
}

static void
append_expr_line (GString *s, CmlSystem *sys, const char *lhs, CmlExpr *e, gboolean pretty)
{
  g_autofree char *txt = expr_text (sys, e, pretty);
  g_string_append_printf (s, "    %s = %s\n", lhs, txt);
}

/* TEXT indented by INDENT, its lines wrapped before WIDTH characters (at spaces). */
static void
append_wrapped (GString *s, const char *text, const char *indent, guint width)
{
  g_auto (GStrv) paragraphs = g_strsplit (text, "\n", -1);

  for (guint k = 0; paragraphs[k]; k++)
    {
      g_auto (GStrv) words = g_strsplit (paragraphs[k], " ", -1);
      glong col = 0;

      g_string_append (s, indent);
      for (guint w = 0; words[w]; w++)
        {
          glong len = g_utf8_strlen (words[w], -1);

          if (words[w][0] == '\0')
            continue;
          if (col > 0 && col + 1 + len > (glong) width)
            {
              g_string_append_c (s, '\n');
              g_string_append (s, indent);
              col = 0;
            }
          if (col > 0)
            {
              g_string_append_c (s, ' ');
              col++;
            }
          g_string_append (s, words[w]);
          col += len;
        }
      g_string_append_c (s, '\n');
    }
}

#define DESCRIBE_WRAP 88

static char *
describe (CmlSystem *sys, gboolean pretty, gboolean inspect, const double *params)
{
  CmlModel *md = sys->model;
  guint m = md->m, n = md->n;
  GString *s = g_string_new (NULL);
  g_autofree char **sec = g_new0 (char *, n + 1);

  for (guint A = 0; A < n; A++)
    sec[A] = name_text (md->sections[A], pretty);

  g_string_append_printf (s, "%s — %s\n", md->name, md->title);
  if (md->description)
    g_string_append_printf (s, "%s\n", md->description);
  if (md->about)
    {
      g_string_append_printf (s, "\n%s\n", _("About this system:"));
      append_wrapped (s, md->about, "  ", DESCRIBE_WRAP);
    }
  if (md->citation)
    {
      g_string_append_printf (s, "\n%s\n", _("References:"));
      append_wrapped (s, md->citation, "  ", DESCRIBE_WRAP);
    }
  if (md->source)
    g_string_append_printf (s, _("\nSource: %s\n"), md->source);
  if (md->errata)
    g_string_append_printf (s, _("%sNote on the printed formulas: %s\n"), md->source ? "" : "\n", md->errata);
  /* the kinds' names are translated where the window shows them (src/app); forces that
   * are not in the Lagrangian ([forces]) are part of the kind of equations */
  {
    const char *forces = "";
    if (md->forces && md->dissipation && md->forces_given)
      forces = _(" with forces: dissipation D and external forces");
    else if (md->forces && md->dissipation)
      forces = _(" with forces: dissipation D");
    else if (md->forces)
      forces = _(" with external forces");
    g_autofree char *kind = g_strconcat (_(cml_formalism_to_string (sys->formalism)), forces, NULL);
    g_string_append_printf (s, _("\nKind: %s\n"), kind);
  }

  g_string_append_printf (s, _("\nLie algebroid: rank %u over a base of dimension %u%s\n"), n, m,
                          sys->lie ? _(" (structure equations hold)") : _(" (structure equations FAIL: general algebroid)"));
  g_string_append (s, _("  base coordinates:  "));
  for (guint i = 0; i < m; i++)
    {
      g_autofree char *b = name_text (md->base[i], pretty);
      g_string_append_printf (s, "%s%s", i ? ", " : "", b);
    }
  g_string_append (s, m ? "\n" : _("(none: a Lie algebra)\n"));
  g_string_append (s, _("  fibre coordinates: "));
  for (guint A = 0; A < n; A++)
    {
      g_autofree char *f = name_text (md->fibre[A], pretty);
      g_string_append_printf (s, _("%s%s (along %s)"), A ? ", " : "", f, sec[A]);
    }
  g_string_append (s, _("\n  anchor:\n"));
  for (guint A = 0; A < n; A++)
    {
      GString *v = g_string_new (NULL);
      for (guint i = 0; i < m; i++)
        if (!cml_expr_is_zero (md->anchor[i * n + A]))
          {
            g_autofree char *b = name_text (md->base[i], pretty);
            g_autofree char *basis = g_strdup_printf (pretty ? "∂/∂%s" : "d/d%s", b);
            append_term (v, sys, md->anchor[i * n + A], basis, pretty);
          }
      g_string_append_printf (s, "    %s(%s) = %s\n", pretty ? "ρ" : "rho", sec[A], v->len ? v->str : "0");
      g_string_free (v, TRUE);
    }
  g_string_append (s, _("  brackets:\n"));
  gboolean any = FALSE;
  for (guint A = 0; A < n; A++)
    for (guint B = A + 1; B < n; B++)
      {
        GString *v = g_string_new (NULL);
        for (guint C = 0; C < n; C++)
          {
            CmlExpr *c = md->bracket[(A * n + B) * n + C];
            if (!cml_expr_is_zero (c))
              append_term (v, sys, c, sec[C], pretty);
          }
        if (v->len)
          {
            g_string_append_printf (s, pretty ? "    ⟦%s, %s⟧ = %s\n" : "    [[%s, %s]] = %s\n", sec[A], sec[B], v->str);
            any = TRUE;
          }
        g_string_free (v, TRUE);
      }
  if (!any)
    g_string_append (s, _("    all zero\n"));
  for (guint A = 0; A < n; A++)
    g_free (sec[A]);

  g_string_append (s, _("\nLagrangian:\n"));
  append_expr_line (s, sys, "L", md->lagrangian, pretty);
  if (md->forces)
    {
      /* [forces]: the generalized forces, −∂D/∂y included (doc/theory.md §3.1) */
      g_string_append (s, _("\nForces that are not in the Lagrangian (W ẏ = R + F …):\n"));
      if (md->dissipation)
        append_expr_line (s, sys, "D", md->dissipation, pretty);
      for (guint A = 0; A < md->n; A++)
        if (!cml_expr_is_zero (md->forces[A]))
          {
            g_autofree char *lhs = g_strdup_printf ("F(%s)", md->sections[A]);
            append_expr_line (s, sys, lhs, md->forces[A], pretty);
          }
    }
  if (md->constraints->len)
    {
      g_string_append (s, md->kind == CML_CONSTRAINTS_VAKONOMIC ? _("\nVakonomic constraints:\n")
                                                           : _("\nNonholonomic constraints:\n"));
      for (guint a = 0; a < md->constraints->len; a++)
        {
          CmlNamedExpr *ne = md->constraints->pdata[a];
          g_autofree char *t = expr_text (sys, ne->expr, pretty);
          g_autofree char *nm = name_text (ne->name, pretty);
          if (md->kind == CML_CONSTRAINTS_VAKONOMIC)
            g_string_append_printf (s, "    %s = %s\n", nm, t);
          else
            g_string_append_printf (s, "    %s: %s = 0\n", nm, t);
        }
    }

  if (sys->derived.steps->len)
    {
      g_string_append (s, _("\nConstraint algorithm (Gotay–Nester–Hinds with the second-order condition, "
                          "on a Lie algebroid: Iglesias, Marrero, Martín de Diego and Sosa 2008):\n"));
      for (guint k = 0; k < sys->derived.steps->len; k++)
        {
          /* a step shows up to three expressions, not all of them cut */
          const char *step = sys->derived.steps->pdata[k];
          gsize len = strlen (step), cut = MIN (len, 3 * DESCRIBE_MAX_CHARS);
          while (cut > 0 && cut < len && (step[cut] & 0xc0) == 0x80)
            cut--;
          g_string_append_printf (s, "  %u. %.*s", k + 1, (int) cut, step);
          if (cut < len)
            g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "… (%lu more character)", "… (%lu more characters)",
                                                    (gulong) (len - cut)),
                                    (gulong) (len - cut));
          g_string_append_c (s, '\n');
        }
    }

  g_string_append (s, _("\nRegularity: "));
  if (sys->derived.reg_rows)
    {
      g_string_append_printf (s, _("%s (%u×%u) must be invertible; the right-hand side checks its pivots\n"),
                              _(sys->derived.reg_name), sys->derived.reg_rows, sys->derived.reg_rows);
      for (guint a = 0; a < sys->derived.reg_rows; a++)
        {
          g_string_append (s, "    [ ");
          for (guint b = 0; b < sys->derived.reg_rows; b++)
            {
              g_autofree char *t = expr_text (sys, sys->derived.reg[a * sys->derived.reg_rows + b], pretty);
              g_string_append_printf (s, "%s%s", b ? ",  " : "", t);
            }
          g_string_append (s, " ]\n");
        }
    }
  else
    g_string_append (s, _("nothing to invert\n"));
  if (sys->derived.na)
    g_string_append (s, _("  The W1 equations are nonlinear in the free velocities: Newton's method solves them at every step.\n"));

  g_string_append (s, pretty ? _("\nEquations of motion (derived; a dot is d/dt):\n")
                             : _("\nEquations of motion (derived; ' is d/dt):\n"));
  for (guint i = 0; i < sys->dim; i++)
    {
      g_autofree char *lhs = pretty ? cml_expr_pretty_name (sys->state_names[i], TRUE)
                                    : g_strdup_printf ("%s'", sys->state_names[i]);
      append_expr_line (s, sys, lhs, sys->derived.rhs[i], pretty);
    }
  if (md->kind == CML_CONSTRAINTS_VAKONOMIC)
    {
      GString *solved = g_string_new (NULL);
      g_string_append (s, _("  with the velocities\n"));
      for (guint A = 0; A < n; A++)
        {
          g_autofree char *nm = name_text (md->fibre[A], pretty);
          /* a free velocity that Newton's method finds is itself: no line "u1 = u1" */
          if (cml_expr_symbol_id (sys->derived.subs_repl[A]) == md->fibre_sym[A])
            g_string_append_printf (solved, "%s%s", solved->len ? ", " : "", nm);
          else
            append_expr_line (s, sys, nm, sys->derived.subs_repl[A], pretty);
        }
      if (solved->len)
        g_string_append_printf (s, _("    %s: solved from the W1 relations by Newton's method at every step\n"), solved->str);
      g_string_free (solved, TRUE);
    }
  guint k_c = sys->derived.h->len - md->invariants->len;
  if (k_c)
    {
      g_string_append (s, _("  kept on the constraint set by projection after every step:\n"));
      for (guint a = 0; a < k_c; a++)
        {
          g_autofree char *t = NULL;
          if (pretty)
            {
              g_autofree char *g = expr_text (sys, cml_expr_monic (sys->ctx, sys->derived.h->pdata[a], NULL), TRUE);
              t = g_strdup_printf ("%s = 0", g);
            }
          else
            t = cml_sys_print_constraint (sys, sys->derived.h->pdata[a]);
          g_string_append_printf (s, "    %s\n", t);
        }
    }
  if (md->invariants->len)
    {
      g_string_append (s, _("  invariants of the configuration (kept by every motion; the states are projected "
                            "onto them after every step):\n"));
      for (guint a = k_c; a < sys->derived.h->len; a++)
        {
          CmlNamedExpr *ne = md->invariants->pdata[a - k_c];
          g_autofree char *g = expr_text (sys, ne->expr, pretty);
          g_string_append_printf (s, "    %s: %s = 0\n", ne->name, g);
        }
    }
  if (md->quaternions->len)
    g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "  %u attitude quaternion renormalised after every step\n",
                                          "  %u attitude quaternions renormalised after every step\n",
                                          md->quaternions->len / 4),
                          md->quaternions->len / 4);

  if (md->monitors->len)
    {
      gboolean any_conserved = FALSE, any_other = FALSE;
      for (guint k = 0; k < md->monitors->len; k++)
        {
          CmlNamedExpr *ne = md->monitors->pdata[k];
          any_conserved |= ne->conserved;
          any_other |= !ne->conserved;
        }
      for (int pass = 0; pass < 2; pass++)
        {
          if (pass == 0 && !any_conserved)
            continue;
          if (pass == 1 && !any_other)
            continue;
          g_string_append (s, pass == 0 ? _("\nConserved quantities (they stay constant along every motion):\n")
                                        : any_conserved ? _("\nOther quantities (not conserved in general):\n")
                                                        : _("\nMonitored quantities:\n"));
          for (guint k = 0; k < md->monitors->len; k++)
            {
              CmlNamedExpr *ne = md->monitors->pdata[k];
              const char *meaning = cml_model_meaning (md, ne->name);
              if (ne->conserved != (pass == 0))
                continue;
              g_autofree char *t = expr_text (sys, ne->expr, pretty);
              g_autofree char *nm = name_text (ne->name, pretty);
              g_string_append_printf (s, "    %s = %s\n", nm, t);
              if (meaning)
                append_wrapped (s, meaning, "        ", DESCRIBE_WRAP);
            }
        }
    }
  if (pretty && g_hash_table_size (md->meanings) > 0)
    {
      g_string_append (s, _("\nWhat the variables mean:\n"));
      for (guint i = 0; i < sys->dim; i++)
        {
          const char *meaning = cml_model_meaning (md, sys->state_names[i]);
          g_autofree char *nm = name_text (sys->state_names[i], pretty);
          const char *unit = cml_model_unit (md, sys->state_names[i]);
          if (meaning == NULL)
            continue;
          g_autofree char *line = g_strdup_printf ("%s%s%s%s: %s", nm, unit[0] && !g_str_equal (unit, "1") ? " [" : "",
                                                   unit[0] && !g_str_equal (unit, "1") ? unit : "",
                                                   unit[0] && !g_str_equal (unit, "1") ? "]" : "", meaning);
          append_wrapped (s, line, "    ", DESCRIBE_WRAP);
        }
    }
  if (pretty && inspect)
    {
      /* the conserved-quantity inspector's candidates and verdicts (cml-conserved.c) */
      g_autoptr (CmlConservedReport) report = cml_conserved_inspect_at (sys, params);
      g_autofree char *text = cml_conserved_report_to_text (report);
      g_string_append (s, text);
    }
  for (guint k = 0; k < sys->warnings->len; k++)
    g_string_append_printf (s, _("\nWarning: %s\n"), (char *) sys->warnings->pdata[k]);
  return g_string_free (s, FALSE);
}

char *
cml_system_describe (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return describe ((CmlSystem *) sys, FALSE, FALSE, NULL);
}

char *
cml_system_describe_readable (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return describe ((CmlSystem *) sys, TRUE, TRUE, NULL);
}

char *
cml_system_describe_readable_at (const CmlSystem *sys, const double *params)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return describe ((CmlSystem *) sys, TRUE, TRUE, params);
}

char *
cml_system_describe_readable_equations (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return describe ((CmlSystem *) sys, TRUE, FALSE, NULL);
}
