/* cml-conserved-private.h — what the files of the conserved-quantity inspector share:
 * its limits, the inspector's state (the system, the admissible states, the ways the
 * constraints are solved) and the functions one file calls in another
 * (cml-conserved.c, cml-conserved-states.c, cml-conserved-moving.c,
 * cml-conserved-casimir.c).  Nowhere else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-conserved.h"
#include "cml-simulation.h"
#include "cml-system-private.h"

G_BEGIN_DECLS

#define SEED 20160101u
#define REL_TOL 1e-9
#define MAX_SHOWN_DERIVATIVE 160
#define MAX_QUADRATIC_CASIMIRS 6
/* quadratic Casimirs are looked for up to this rank (n²(n + 1)/2 equations in n(n + 1)/2
 * unknowns) */
#define MAX_CASIMIR_RANK 12

/* the run sampled from the initial state: its length (in the model's time unit) and its
 * states; the states near the initial state */
#define RUN_LENGTH 10.0
#define RUN_STATES 60
#define NEAR_STATES 40

/* the ways the affine constraints are solved for some of the velocities to decide "dF/dt
 * vanishes where the constraints hold" exactly; the subsets of velocities looked at for
 * them and for the moving frames; the moving frames judged */
#define MAX_ELIMINATIONS 2
#define MAX_SUBSETS 64
#define MAX_FRAMES 16

typedef enum
{
  SAMPLE_INITIAL,
  SAMPLE_RUN,
  SAMPLE_NEAR,
  SAMPLE_RANDOM,
  N_SAMPLE_KINDS
} SampleKind;

typedef struct
{
  CmlSystem     *sys;
  CmlExprCtx    *ctx;
  CmlSimulation *sim;     /* NULL: no admissible states */
  guint          ns;      /* symbols of the context */
  double        *states;  /* n_states rows of ns values (t, state, parameters) */
  double        *rhs;     /* n_states rows of dim values */
  guint          n_states;
  char          *no_states_reason;
  const double  *params;  /* the parameters' values, or NULL: the model's */
  SampleKind    *kinds;   /* where each state comes from */
  double        *sample_t; /* the time of each state */
  guint          n_kind[N_SAMPLE_KINDS];
  double         run_to;  /* the end of the sampled run */
  GArray        *unit_groups; /* (first index, length) pairs of unit vectors in the state */
  /* where the constraints hold: affine constraints solved for s of the velocities, up to
   * MAX_ELIMINATIONS ways (velocity ids, then their values, s of each) */
  guint          n_elims;
  int           *elim_ids[MAX_ELIMINATIONS];
  CmlExpr      **elim_repl[MAX_ELIMINATIONS];
} Inspector;

/* cml-conserved.c */
void cml_conserved_candidate_free (CmlConservedCandidate *c);
char *cml_conserved_pretty (Inspector *in, CmlExpr *e, gsize max_chars);
gboolean cml_conserved_depends_on_aux (CmlSystem *sys, CmlExpr *e);
CmlExpr *cml_conserved_time_derivative (Inspector *in, CmlExpr *F, CmlExpr **grad,
                                        CmlExpr **dFdt_partial);
gboolean cml_conserved_next_subset (guint *J, guint k, guint n);
void cml_conserved_constraint_matrix (Inspector *in, const guint *J, guint k, CmlExpr **PhiJ);
int cml_conserved_exact_zero (Inspector *in, CmlExpr *d);
CmlExpr *cml_conserved_at_values (Inspector *in, CmlExpr *e);
gboolean cml_conserved_depends_on_t_at_values (Inspector *in, CmlExpr *e);
void cml_conserved_decide (Inspector *in, CmlConservedCandidate *c, const char *hint);
CmlConservedCandidate *cml_conserved_add_candidate (Inspector *in, CmlConservedReport *r,
                                                    CmlCandidateKind kind, const char *name,
                                                    const char *what, CmlExpr *expr);

/* cml-conserved-states.c */
gboolean cml_conserved_admissible (Inspector *in, double *vals, double t, gboolean at_t, double *z,
                                   double *t_out);
void cml_conserved_make_states (Inspector *in);
char *cml_conserved_states_text (Inspector *in);

/* cml-conserved-moving.c */
CmlExpr **cml_conserved_affine_terms (Inspector *in);
void cml_conserved_add_moving_energy (Inspector *in, CmlConservedReport *r, CmlExpr *E,
                                      CmlExpr **phi0);

/* cml-conserved-casimir.c */
void cml_conserved_add_casimirs (Inspector *in, CmlConservedReport *r);

G_END_DECLS
