/* cml-system-private.h — what the files of the derivation share: the system's structure
 * and the pieces of the derivation used across files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not installed: the public interface is cml-system.h.  What the files of a run share is
 * cml-simulation-private.h, above this header.
 */
#pragma once

#include <glib.h>
#include <math.h>

#include "cml-system.h"
#include "cml-derivation.h"
#include "cml-native.h"
#include "cml-program.h"

G_BEGIN_DECLS

struct _CmlSystem
{
  gint         ref_count;
  CmlModel    *model;
  CmlExprCtx  *ctx;
  CmlFormalism formalism;

  guint        m, n, nr, dim;
  char       **state_names;
  int         *state_sym;

  guint        n_params;
  int         *param_sym;

  /* fast inputs: t, the state, and (nonlinear vakonomic only) the free velocities
   * (derived.na, derived.aux_sym) */
  int         *fast_sym;
  guint        n_fast;

  /* symbolic results: what the formalism returned (cml_sys_keep_derivation), completed by
   * cml_system_new from the model alone: rhs with the reconstruction rates (n_rhs = dim),
   * h with the invariants, the substitutions with the multipliers' names, fb2 with the
   * reconstruction rates */
  CmlDerivation derived;
  /* the pivots that depend on parameters only are checked when the parameters change,
   * the others on every call of the right-hand side */
  guint       *fast_pivots, n_fast_pivots;
  guint       *slow_pivots, *slow_pivot_regs, n_slow_pivots;
  GPtrArray   *obs_names;   /* char* */
  GPtrArray   *obs;         /* CmlExpr* */
  CmlProgram  *fb2_prog;

  CmlProgram  *rhs_prog, *obs_prog, *proj_prog, *reg_prog, *newton_prog, *scene_prog, *fb_prog;
  /* the derived-system cache's entry (cml-system-cache.c) that holds this system, or NULL:
   * with the role of a native object, the key of its memo (cml_native_build_keyed) */
  char        *cache_key;
  gboolean     from_cache;  /* read from that entry, not derived */
  /* what the simulation layer builds from the system on first use and keeps for its next
   * runs (the Jacobian, native code, the variational programs: cml-system-runtime.h), made
   * by cml_sys_runtime; the system only frees it (with runtime_free) */
  gpointer     runtime;
  GDestroyNotify runtime_free;
  GHashTable  *scene_offsets;  /* "object\nkey" -> offset + 1 */
  guint        n_scene;

  gboolean     lie;
  double       structure_defect;
  GPtrArray   *warnings;    /* char*: the model's warnings, then the derivation's (the
                             * algebroid's structure); the model is not written to */
};

#define ZERO(ctx) cml_expr_num ((ctx), 0)

/* The name of the matrix that fixes the kernel accelerations of a singular Lagrangian. */
#define KAPPA_MATRIX "of the kernel accelerations (the SODE condition)"

/* Expressions shown to people (the steps of the algorithm, the description) are cut after
 * this many characters, ending "… (about N more characters)": derived equations share
 * subexpressions, which print at every use, and a 500-byte model once described itself in
 * 21.5 MB.  The longest line of a built-in model's description has about 650. */
#define DESCRIBE_MAX_CHARS 2000

typedef struct
{
  CmlExpr **xdot; /* m: ρ y */
  CmlExpr **Ly;   /* n: ∂L/∂y */
  CmlExpr **W;    /* n×n */
  CmlExpr **R;    /* n */
} Mechanics;

/* Three random points projected onto {G = 0}, made again only when G has grown: every
 * question "does H vanish there?" of one stage of the algorithm uses the same points. */
#define N_SAMPLES 3

typedef struct
{
  guint   n_g;                /* G->len they were made for; G_MAXUINT: none yet */
  double *v[N_SAMPLES];       /* NULL: that point could not be projected */
} Samples;

/* cml-system.c */
/* Keeps what a formalism derived, D, in SYS (sys->derived, empty until then): D is taken
 * and freed, its rates completed to the system's dim with NULL. */
void cml_sys_keep_derivation (CmlSystem *sys, CmlDerivation *d);
/* What a layer above keeps with SYS (the runtime above): made by MAKE on the first call from
 * any thread, freed by FREE_FUNC with SYS; the same pointer at every call. */
gpointer cml_sys_runtime (CmlSystem *sys, gpointer (*make) (void), GDestroyNotify free_func);
CmlExpr *cml_sys_sym (CmlExprCtx *ctx, int id);
CmlExpr *cml_sys_madd (CmlExprCtx *ctx, CmlExpr *acc, CmlExpr *a, CmlExpr *b);
double *cml_sys_make_sample (CmlSystem *sys, guint32 seed);
/* cml-invariants.c: checks that the anchor keeps the model's invariants of the configuration
 * and appends them to the constraint functions h (the last model->invariants->len rows),
 * with the base coordinates among the components the projection moves. */
gboolean cml_sys_add_invariants (CmlSystem *sys, GError **error);
gboolean cml_sys_fail_model (CmlSystem *sys, GError **error, int line, int code, const char *fmt,
                             ...) G_GNUC_PRINTF (5, 6);
/* The same for a model: the error CODE at LINE of MD's file (FALSE) */
gboolean cml_sys_fail_in_model (const CmlModel *md, GError **error, int line, int code,
                                const char *fmt, ...) G_GNUC_PRINTF (5, 6);
void cml_sys_add_pivot (CmlSystem *sys, CmlExpr *pivot, const char *matrix);

/* cml-structure.c */
double cml_sys_structure_defect (CmlSystem *sys, char **message);

/* cml-euler-lagrange.c */
void cml_sys_mechanics_init (CmlExprCtx *ctx, const CmlModel *md, Mechanics *mc);
void cml_sys_mechanics_clear (Mechanics *mc);
/* The Euler–Lagrange equations (W ẏ = R solved), or NULL when W is singular at SAMPLE */
CmlDerivation *cml_sys_derive_euler_lagrange (CmlExprCtx *ctx, const CmlModel *md,
                                              const Mechanics *mc, const double *sample);

/* cml-regularity.c */
gboolean cml_sys_fail_singular_C (const CmlModel *md, CmlExpr *const *Phy, CmlExpr *const *Cm,
                                  const double *sample, GError **error);
gboolean cml_sys_fail_singular_Rab (const CmlModel *md, CmlExpr *const *Rab, guint nf,
                                    const guint *free_idx, CmlExpr *const *psi,
                                    const double *sample, GError **error);

/* cml-lagrange-dalembert.c */
/* The Lagrange–d'Alembert equations, or NULL with *ERROR set (W or C singular) */
CmlDerivation *cml_sys_derive_nonholonomic (CmlExprCtx *ctx, const CmlModel *md,
                                            const Mechanics *mc, const double *sample,
                                            GError **error);

/* cml-vakonomic.c */
/* The vakonomic equations, or NULL with *ERROR set (R_ab singular) */
CmlDerivation *cml_sys_derive_vakonomic (CmlExprCtx *ctx, const CmlModel *md,
                                         const double *sample, GError **error);

/* cml-constraint-algorithm.c */
char *cml_sys_drop_unit_factors (char *text, gboolean pretty);
char *cml_sys_print_constraint (CmlSystem *sys, CmlExpr *g);
const char *cml_sys_coordinate_name (CmlSystem *sys, guint j);
/* The constraint algorithm on W ẏ = R (reading SYS's model, context and parameters), or
 * NULL with *ERROR set */
CmlDerivation *cml_sys_derive_singular (CmlSystem *sys, Mechanics *mc, GError **error);

/* cml-constraint-samples.c: whether H vanishes on {G = 0} at the points of S (made or
 * remade for G, moving the symbols MOVE); the solve-for coordinates checked there */
void cml_sys_samples_clear (Samples *S);
gboolean cml_sys_vanishes_on (CmlSystem *sys, CmlExpr *H, GPtrArray *G, const int *move,
                              guint n_move, Samples *S);
gboolean cml_sys_check_solve_for (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move,
                                  Samples *S, GError **error);

/* cml-system-programs.c */
CmlExpr *cml_sys_user_expr (CmlSystem *sys, CmlExpr *e);
void cml_sys_add_observable (CmlSystem *sys, const char *name, CmlExpr *e);
gboolean cml_sys_compile_programs (CmlSystem *sys, GError **error);
void cml_sys_classify_pivots (CmlSystem *sys);
void cml_sys_scene_layout (CmlSystem *sys, GPtrArray *outs);

/* cml-system.c: the fast inputs t, the state, then the free velocities (fast_sym) */
void cml_sys_set_fast_inputs (CmlSystem *sys);

/* cml-system-cache.c: the derived system from the cache, or FALSE (SYS as it was: derive
 * it); a derivation that succeeded into the cache (NODES0, SYMS0: the context's
 * expressions and symbols before it) */
gboolean cml_sys_cache_load (CmlSystem *sys);
void cml_sys_cache_save (CmlSystem *sys, guint nodes0, guint syms0);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Samples, cml_sys_samples_clear)

G_END_DECLS
