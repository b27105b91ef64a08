/* cml-derivation.c — the value a formalism returns (cml-derivation.h): made empty, filled
 * by the formalism, kept by the system (which holds one in place: init, clear), freed.
 * The expressions belong to the model's context; the value holds only the arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-derivation.h"

void
cml_derivation_init (CmlDerivation *d, guint n_rhs)
{
  *d = (CmlDerivation) { 0 };
  d->n_rhs = n_rhs;
  d->rhs = g_new0 (CmlExpr *, MAX (n_rhs, 1));
  d->pivots = g_ptr_array_new ();
  d->pivot_names = g_ptr_array_new ();
  d->fb = g_ptr_array_new ();
  d->h = g_ptr_array_new ();
  d->steps = g_ptr_array_new_with_free_func (g_free);
}

void
cml_derivation_clear (CmlDerivation *d)
{
  g_clear_pointer (&d->rhs, g_free);
  g_clear_pointer (&d->pivots, g_ptr_array_unref);
  g_clear_pointer (&d->pivot_names, g_ptr_array_unref);
  g_clear_pointer (&d->reg, g_free);
  g_clear_pointer (&d->fb, g_ptr_array_unref);
  g_clear_pointer (&d->lambda, g_free);
  g_clear_pointer (&d->h, g_ptr_array_unref);
  g_clear_pointer (&d->aux_sym, g_free);
  g_clear_pointer (&d->newton, g_free);
  g_clear_pointer (&d->subs_ids, g_free);
  g_clear_pointer (&d->subs_repl, g_free);
  g_clear_pointer (&d->fb_aux_sym, g_free);
  g_clear_pointer (&d->fb_yhat, g_free);
  g_clear_pointer (&d->fb2, g_ptr_array_unref);
  g_clear_pointer (&d->fb_Kc, g_free);
  g_clear_pointer (&d->fb_K, g_free);
  g_clear_pointer (&d->fb_P, g_free);
  g_clear_pointer (&d->fb_Q, g_free);
  g_clear_pointer (&d->fb_F, g_free);
  g_clear_pointer (&d->fb_cols, g_free);
  g_clear_pointer (&d->steps, g_ptr_array_unref);
}

CmlDerivation *
cml_derivation_new (guint n_rhs)
{
  CmlDerivation *d = g_new (CmlDerivation, 1);

  cml_derivation_init (d, n_rhs);
  return d;
}

void
cml_derivation_free (CmlDerivation *d)
{
  if (d == NULL)
    return;
  cml_derivation_clear (d);
  g_free (d);
}

void
cml_derivation_add_pivot (CmlDerivation *d, CmlExpr *pivot, const char *matrix)
{
  g_ptr_array_add (d->pivots, pivot);
  g_ptr_array_add (d->pivot_names, (gpointer) matrix);
}
