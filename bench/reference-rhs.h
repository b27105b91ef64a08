/* reference-rhs.h — the built-in systems' equations written out by hand in C, and their
 * closed forms: the yardsticks of `cmlab-bench`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * These are the equations of doc/theory.md §9, typed in by hand, in the state
 * layout the engine derives for the same model file (base coordinates, fibre coordinates
 * or momenta, reconstruction variables).  They exist only so that the benchmark can
 * compare the generic right-hand side, derived and compiled from models/NAME.cml, with
 * what a person would write for one system.  They are linked into the command-line tool,
 * never into src/core: the engine stays generic (a system is data; its equations are derived).
 *
 * The closed forms are those of doc/theory.md §9 and the oracles of §10, for the models'
 * default parameters and initial data.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CML_REF_MAX_PARAMS 8
#define CML_REF_MAX_DIM    12

/* Parameter values (the model's names, in the order of CmlRefSystem.param_names) and the
 * constants derived from them once, as a hand-written program would keep them. */
typedef struct
{
  double p[CML_REF_MAX_PARAMS];
  double c[CML_REF_MAX_PARAMS];
} CmlRefParams;

/* Same signature as CmlOdeRhsFunc: dz/dt at (t, z); USER_DATA is a CmlRefParams. */
typedef int (*CmlRefRhsFunc) (double t, const double *z, double *dzdt, void *user_data);

typedef struct
{
  const char        *model;        /* built-in name */
  guint              dim;
  const char *const *state_names;  /* the layout, checked against the derived system */
  guint              n_params;
  const char *const *param_names;
  CmlRefRhsFunc      rhs;
  void             (*prepare) (CmlRefParams *params); /* fills params->c from params->p */
} CmlRefSystem;

/* The six built-ins: rolling-ball, rolling-ball-varying, plate-ball, martinet,
 * capri-kobayashi, capri-kobayashi-full.  NULL-terminated by *N. */
const CmlRefSystem *cml_ref_systems (guint *n);
const CmlRefSystem *cml_ref_system_lookup (const char *model);

/* ---- closed forms (doc/theory.md §9 and §10) ------------------------------------------- */

/* The characteristic period of a built-in at parameters P and initial state Z0:
 * the centre's circle 2π/(κΩ) for the balls (Ω0 for the varying one; 7π when Ω = 0), the
 * elastica's 4K(k_e²)/ν for plate-ball, 4K(m)/ν for Martinet, π m2/√(1+2 m2) (the period
 * of ρ) for Capri–Kobayashi. */
double cml_ref_period (const CmlRefSystem *sys, const CmlRefParams *p, const double *z0);

/* The exact values of some named components at time T from the initial state Z0 (the
 * model's default initial data).  Writes up to MAX names (static strings) and values and
 * returns how many, or 0 when there is no closed form at T (Martinet and plate-ball: only
 * at whole periods; plate-ball: only for c = Ω = 0). */
guint cml_ref_exact (const CmlRefSystem *sys, const CmlRefParams *p, const double *z0, double t,
                     const char **names, double *values, guint max);

G_END_DECLS
