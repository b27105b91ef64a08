/* cml-derivation.c — the value a formalism returns (cml-derivation.h): made empty, filled
 * by the formalism, kept by the system, freed.  The expressions belong to the model's
 * context; the value holds only the arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-derivation.h"

CmlDerivation *
cml_derivation_new (guint n_rhs)
{
  CmlDerivation *d = g_new0 (CmlDerivation, 1);

  d->n_rhs = n_rhs;
  d->rhs = g_new0 (CmlExpr *, MAX (n_rhs, 1));
  d->pivots = g_ptr_array_new ();
  d->pivot_names = g_ptr_array_new ();
  d->fb = g_ptr_array_new ();
  d->h = g_ptr_array_new ();
  d->steps = g_ptr_array_new_with_free_func (g_free);
  return d;
}

void
cml_derivation_free (CmlDerivation *d)
{
  if (d == NULL)
    return;
  g_free (d->rhs);
  g_ptr_array_unref (d->pivots);
  g_ptr_array_unref (d->pivot_names);
  g_free (d->reg);
  g_ptr_array_unref (d->fb);
  g_free (d->lambda);
  g_ptr_array_unref (d->h);
  g_free (d->aux_sym);
  g_free (d->newton);
  g_free (d->subs_ids);
  g_free (d->subs_repl);
  g_free (d->fb_aux_sym);
  g_free (d->fb_yhat);
  g_clear_pointer (&d->fb2, g_ptr_array_unref);
  g_free (d->fb_Kc);
  g_free (d->fb_K);
  g_free (d->fb_P);
  g_free (d->fb_Q);
  g_free (d->fb_F);
  g_free (d->fb_cols);
  g_ptr_array_unref (d->steps);
  g_free (d);
}

void
cml_derivation_add_pivot (CmlDerivation *d, CmlExpr *pivot, const char *matrix)
{
  g_ptr_array_add (d->pivots, pivot);
  g_ptr_array_add (d->pivot_names, (gpointer) matrix);
}
