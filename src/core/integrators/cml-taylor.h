/* cml-taylor.h — the Taylor method: the Taylor coefficients of the solution of
 * dz/dt = f(t, z), computed from the expressions of f by automatic differentiation, and
 * the steps taken with them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Taylor program lists the nodes of the expression DAG of f in topological order, each
 * with its recurrence (doc/theory.md, "The Taylor integrator"); running it gives the
 * normalised derivatives z_[k] = z^(k)(t0)/k!, k = 0 … p, of the solution through
 * (t0, z0).  The program runs in an interpreter, or as native code (cml-native.h) that
 * computes the same numbers bit for bit.  A CmlTaylor is used by one thread at a time.
 */
#pragma once

#include <glib.h>

#include "cml-expr.h"
#include "cml-integrator.h"
#include "cml-native.h"

G_BEGIN_DECLS

typedef struct _CmlTaylor CmlTaylor;

/* The order of the Taylor polynomial for a tolerance EPS (Jorba & Zou 2005):
 * p = ⌈−½ ln ε + 1⌉, at least 2 and at most CML_TAYLOR_MAX_ORDER. */
#define CML_TAYLOR_MAX_ORDER 60
guint       cml_taylor_order_for_tolerance (double rtol, double atol);

/* Compiles the right-hand side RHS[0 … dim) of CTX, with T_ID the symbol of time,
 * STATE_IDS[i] the symbol of component i and PARAM_IDS the parameters (their values come
 * from cml_taylor_set_params), into a Taylor program of ORDER.  A symbol in none of these
 * lists, or a function without a recurrence, is an error (CML_ERROR_UNSUPPORTED, naming
 * it). */
CmlTaylor  *cml_taylor_compile (CmlExprCtx      *ctx,
                                CmlExpr *const  *rhs,
                                guint            dim,
                                int              t_id,
                                const int       *state_ids,
                                const int       *param_ids,
                                guint            n_params,
                                guint            order,
                                GError         **error);
void        cml_taylor_free (CmlTaylor *tp);
guint       cml_taylor_order (const CmlTaylor *tp);
guint       cml_taylor_dim (const CmlTaylor *tp);
/* Number of coefficient arrays the program fills (a cost measure). */
guint       cml_taylor_n_series (const CmlTaylor *tp);

/* What the right-hand side is made of, as far as its varying part goes: "polynomial",
 * "trigonometric" (polynomial in the state and sines, cosines, exponentials of it), or
 * "rational or algebraic" (divisions, roots, real powers, inverse functions). */
const char *cml_taylor_kind_of_rhs (const CmlTaylor *tp);

/* The parameter values (n_params doubles, kept by pointer: cml_taylor_reset reads them
 * again after a change). */
void        cml_taylor_set_params (CmlTaylor *tp, const double *params);

/* The Taylor coefficients of the solution through (T, Z) into COEFS (dim rows of order + 1
 * coefficients: coefs[i * (order + 1) + k] = z_i^(k)(t)/k!).  The steps keep their
 * coefficients where the program leaves them: a jet ends the step under way. */
void        cml_taylor_jet (CmlTaylor *tp, double t, const double *z, double *coefs);

/* Native code: appends the C function NAME (void NAME (double *S, const double *C)) that
 * runs the program, and NAME_step, the whole step around it (cml-taylor-core.h); the text
 * begins with the generator's version, which so enters the key of the native-code cache. */
#define CML_TAYLOR_GENERATOR_VERSION 6
gboolean    cml_taylor_emit_c (const CmlTaylor *tp, const char *name, GString *s);
/* Uses FN (looked up in NATIVE, which TP then owns) instead of the interpreter; NULL goes
 * back to the interpreter. */
void        cml_taylor_set_native (CmlTaylor *tp, CmlNative *native, const char *name);
gboolean    cml_taylor_is_native (const CmlTaylor *tp);
/* Native code whose source also has NAME_step_projected (the step, then its end projected
 * by cml-project-core.h's fused projection: a system's Taylor object, cml-system-native.c)
 * takes its steps there with PJ, when the integrator's options ask for projection; NULL
 * leaves the projection to the integrator's callback. */
struct CmlProjectFused; /* cml-project-core.h */
void        cml_taylor_set_fused_projection (CmlTaylor *tp, struct CmlProjectFused *pj);
/* The steps the native code's whole step took (the others ran the library's step). */
guint64     cml_taylor_n_native_steps (const CmlTaylor *tp);

/* The Taylor program of SYS's right-hand side (cml-system.h) at the order for O's
 * tolerances, with the parameter values PARAMS (kept by pointer), and with NATIVE its
 * native code (built, or found in the cache, here; the interpreter when that fails).
 * Refused (CML_ERROR_UNSUPPORTED, naming the reason) for a system whose right-hand side is
 * not a closed expression (free velocities found by Newton's method). */
struct _CmlSystem;
CmlTaylor  *cml_taylor_new_for_system (struct _CmlSystem *sys, const double *params,
                                       const CmlIntegratorOptions *o, gboolean native,
                                       GError **error);

/* ---- stepping (called by cml-integrator.c for CML_INTEGRATOR_TAYLOR) ---------------- */

/* Advances Z from *T to exactly T1 with steps of the order's length chosen from the
 * tolerances of O, the output at T1 read from the Taylor polynomial of the step that
 * covers it (steps are not shortened to land on output times); projects with ODE->project
 * after every step (and the output) when O->project.  Failures as
 * cml_integrator_advance (); counts steps and jets into *N_STEPS and *N_JETS. */
gboolean    cml_taylor_advance (CmlTaylor *tp, const CmlOde *ode, const CmlIntegratorOptions *o,
                                double *t, double t1, double *z, guint64 *n_steps, guint64 *n_jets,
                                GError **error);
/* Forgets the current step (the state or the parameters were changed from outside). */
void        cml_taylor_reset (CmlTaylor *tp);
/* The step under way, for restarting bit for bit (cml_integrator_save_step_state). */
guint       cml_taylor_step_state_size (const CmlTaylor *tp);
void        cml_taylor_save_step_state (const CmlTaylor *tp, const double *z, double *out);
void        cml_taylor_restore_step_state (CmlTaylor *tp, const CmlOde *ode,
                                           const CmlIntegratorOptions *o, const double *z,
                                           const double *in);
/* The size of the last step taken (signed; 0 before the first). */
double      cml_taylor_last_step (const CmlTaylor *tp);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlTaylor, cml_taylor_free)

G_END_DECLS
