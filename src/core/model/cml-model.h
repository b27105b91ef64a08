/* cml-model.h — a model file (.cml) parsed and validated: the immutable model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A CmlModel is pure data: the algebroid (anchor, brackets), the Lagrangian, the
 * constraints, parameters, definitions (already substituted), initial data, monitors,
 * reconstruction equations, presets and the scene, all as expressions in the model's own
 * CmlExprCtx.  The equations of motion are derived from it by CmlSystem.  The format is
 * documented in doc/model-format.md.
 */
#pragma once

#include <glib.h>

#include "cml-expr.h"

G_BEGIN_DECLS

/* Size budgets: a model beyond one of them is refused at load with FILE:LINE and the
 * limit (doc/model-format.md, "Limits").  They keep every later stage — the derivation, the
 * structure check (about fibre⁵ work), the programs, the native code — to seconds and
 * megabytes for any file that loads. */
#define CML_MODEL_MAX_BYTES          (1024 * 1024) /* a model file, in bytes */
#define CML_MODEL_MAX_KEYS           1000          /* keys in one group (parameters, definitions, …) */
#define CML_MODEL_MAX_GROUPS         1000          /* groups (presets and scene objects included) */
#define CML_MODEL_MAX_BASE           200           /* base coordinates */
#define CML_MODEL_MAX_FIBRE          64            /* fibre coordinates */
#define CML_MODEL_MAX_RECONSTRUCTION 200           /* reconstruction variables */
#define CML_MODEL_MAX_EXPR_BYTES     (64 * 1024 * 1024) /* expression memory, definitions substituted */

typedef enum
{
  CML_CONSTRAINTS_NONE,
  CML_CONSTRAINTS_NONHOLONOMIC,
  CML_CONSTRAINTS_VAKONOMIC,
} CmlConstraintKind;

typedef struct
{
  char    *name;
  int      sym;
  double   value;    /* default */
  double   min, max; /* allowed range (inclusive) */
  double  *choices;  /* non-NULL: only these values are allowed */
  guint    n_choices;
  char    *unit;
  char    *meaning;
} CmlParam;

/* [parameters] require: one condition the parameters must meet together, "I1 <= I2 + I3",
 * kept as  slack >= 0  (or > 0 when strict), slack = I2 + I3 - I1. */
typedef struct
{
  char    *text;     /* as written, for messages */
  CmlExpr *slack;    /* in the parameters only */
  CmlExpr *scale;    /* |left| + |right|: the rounding allowed is relative to it */
  gboolean strict;   /* < or > */
} CmlRequirement;

typedef struct
{
  char    *name;
  int      sym;
  CmlExpr *expr;     /* monitors: the value; reconstruction: the time derivative */
  int      line;
  gboolean conserved; /* monitors: declared a conserved quantity ("| conserved") */
} CmlNamedExpr;

/* [reference]: a name of the model's context and the symbol of its value at t = 0
 * ("x" and "x_0"), which closed forms may use. */
typedef struct
{
  int sym;      /* the observable: a coordinate, velocity, momentum, reconstruction variable or monitor */
  int zero_sym; /* "NAME_0" */
} CmlInitialSym;

typedef struct
{
  char       *name;
  char       *title;
  GHashTable *values; /* name -> double* */
} CmlPreset;

typedef struct
{
  char       *name;
  char       *type;     /* sphere, turntable, plane, point, trail, disc, arrow */
  GHashTable *props;    /* key -> GPtrArray of CmlExpr* (not owned) */
  char       *color;    /* or NULL */
  char       *label;    /* what it stands for, for the scene's legend, or NULL */
} CmlSceneObject;

typedef struct _CmlModel CmlModel;

struct _CmlModel
{
  /*< private >*/
  gint        ref_count;
  guint       parsed_nodes; /* expressions the loader made: while ctx has no more, it is as
                             * loading left it (the derived-system cache) */
  /*< public, read-only >*/
  char       *path;        /* as given to the loader, for messages */
  char       *text;        /* the file's text (embedded in sessions) */
  char       *name, *title, *description, *source, *errata, *time_unit;
  char       *about;       /* what to watch for, two or three sentences (or NULL) */
  char       *citation;    /* the references, for people (or NULL) */
  /* title, description, source, errata, about, the meanings, the presets' titles and the
   * scene's labels are in the user's language (a model file's "title[es]"); the untranslated
   * title names the model in files written for programs (CSV, JSON), the same in every language */
  char       *title_untranslated;

  CmlExprCtx *ctx;
  int         t_sym;

  GPtrArray  *params;      /* CmlParam* */
  GPtrArray  *requirements;   /* CmlRequirement*: what values are physically possible together */
  char       *require_message; /* why, for people (user's language), or NULL */

  guint       m, n;        /* base dimension, rank */
  char      **base;        /* m names */
  int        *base_sym;
  char      **fibre;       /* n names */
  int        *fibre_sym;
  char      **sections;    /* n names */
  char      **momenta;     /* n names */
  int        *momenta_sym;

  CmlExpr   **anchor;      /* m*n: anchor[i*n + A] = rho^i_A */
  CmlExpr   **bracket;     /* n*n*n: bracket[(A*n + B)*n + C] = C^C_AB */

  CmlExpr    *lagrangian;
  int         lagrangian_line;

  CmlConstraintKind kind;
  GPtrArray  *constraints;  /* CmlNamedExpr*: nonholonomic phi^a; vakonomic: name = constrained fibre, expr = Psi */
  int         constraints_line;
  int        *multiplier_sym; /* per constraint: the symbol of its multiplier (nonholonomic
                               * "lambda_<name>", vakonomic "mu_<name>"), −1 where the model
                               * uses that name for something else; NULL without constraints */
  CmlExpr   **forces;       /* [forces]: n, the generalized force F_A along each section, the
                             * given one minus ∂D/∂y^A; NULL without a [forces] group */
  CmlExpr    *dissipation;  /* [forces] dissipation: Rayleigh's function D(t, x, y), or NULL */
  gboolean    forces_given; /* [forces] gives a force along a section (besides dissipation) */
  int         forces_line;
  int        *solve_for;    /* [dynamics] solve-for: base i as i, fibre A as m + A (n_solve_for of them) */
  guint       n_solve_for;

  GPtrArray  *reconstruction; /* CmlNamedExpr*: time derivatives */
  GArray     *quaternions;    /* guint indices into reconstruction, 4 per quaternion */
  GArray     *base_quaternions; /* guint indices into base, 4 per quaternion ([quaternions] of base
                                 * coordinates: each also an invariant, |q|² − 1) */
  GPtrArray  *invariants;     /* CmlNamedExpr*: [invariants], functions g(x) of the base coordinates
                               * (and parameters) every motion keeps at 0, then |q|² − 1 of each
                               * base quaternion; kept by the projection (cml-invariants.c) */
  int         invariants_line;
  GPtrArray  *monitors;       /* CmlNamedExpr* (earlier monitors substituted) */
  GPtrArray  *definitions;    /* CmlNamedExpr*: [definitions], already substituted elsewhere */
  GHashTable *initial;        /* name -> double* */
  GHashTable *units;          /* name -> char* */
  GHashTable *meanings;       /* name -> char*: what a variable or monitor means, for people */
  GHashTable *symbols;        /* name -> char*: how it is written for people ("pr" -> "pᵣ",
                               * [symbols]); see cml_model_display_name */
  GHashTable *labels;         /* name -> char*: how plots name a monitor ([labels]), for people */
  char      **columns;        /* output columns (NULL-terminated) */
  GPtrArray  *presets;        /* CmlPreset* */
  GPtrArray  *scene;          /* CmlSceneObject* */
  GPtrArray  *warnings;       /* char*: things the user should know (general algebroid …) */
  GPtrArray  *references;     /* CmlNamedExpr*: [reference] closed forms, in file order: name and sym
                               * the observable, expr in t, parameters and initial values (never NULL) */
  GArray     *initial_syms;   /* CmlInitialSym: the "NAME_0" symbols the references may use */
};

/* Loads and validates a model file.  Errors (CML_ERROR_*) are "FILE:LINE: message" or
 * "FILE:LINE:COLUMN: message". */
CmlModel *cml_model_new_from_file (const char *path, GError **error);
/* The same from text; DISPLAY_NAME is used as FILE in messages. */
CmlModel *cml_model_new_from_data (const char *text, const char *display_name, GError **error);
/* Finds a built-in model by name (e.g. "rolling-ball") in the models directory:
 * $CMLAB_MODELS_DIR, else the installed one, else ./models; or loads PATH_OR_NAME as a
 * file when it names one. */
CmlModel *cml_model_load (const char *path_or_name, GError **error);
/* The built-in model names found in the models directory, sorted; free with g_strfreev.
 * A file whose name is not UTF-8 or has a control character (a newline, an escape) is
 * not listed. */
char    **cml_model_list_builtin (void);
/* Directory searched for built-in models. */
const char *cml_model_builtin_dir (void);

CmlModel *cml_model_ref (CmlModel *model);
void      cml_model_unref (CmlModel *model);

const CmlParam *cml_model_find_param (const CmlModel *model, const char *name);
int             cml_model_param_index (const CmlModel *model, const char *name);
/* Checks VALUE against the parameter's range/choices; error names the range. */
gboolean        cml_model_check_param (const CmlModel *model, const CmlParam *param, double value,
                                       GError **error);
/* Checks VALUES (one per parameter, model order) against every range and the model's
 * requirements ([parameters] require); the error names the condition that fails and why. */
gboolean        cml_model_check_params (const CmlModel *model, const double *values,
                                        GError **error);
/* The first requirement VALUES do not meet, or NULL. */
const CmlRequirement *cml_model_unmet_requirement (const CmlModel *model, const double *values);
/* The same with parameter INDEX set to VALUE and the others at VALUES. */
gboolean        cml_model_check_param_with (const CmlModel *model, const double *values,
                                            guint index, double value, GError **error);
/* The unit of a coordinate, momentum, monitor …, or "" */
const char     *cml_model_unit (const CmlModel *model, const char *name);
/* What a coordinate, momentum, monitor … means ([meanings]), or NULL. */
const char     *cml_model_meaning (const CmlModel *model, const char *name);
/* How a quantity is named to people (plots, legends, lists): its [labels] entry, a word in
 * the user's language ("energy" -> "energía"), else its [symbols] entry
 * ("casimir" -> "|Γ|²", "pr" -> "pᵣ"), else its name typeset as the equations write it
 * ("rho" -> "ρ", "x1" -> "x₁"); "residual" is the constraint residual.  Newly allocated. */
char           *cml_model_display_name (const CmlModel *model, const char *name);
/* How plots and lists name a monitor or variable whose name is a word ([labels], in the
 * user's language: "energía" for "energy"), or NULL: then its name is shown. */
const char     *cml_model_label (const CmlModel *model, const char *name);
/* Where the body is, for "how far from the start": the base coordinates that share the unit
 * of the first one, when that unit is a physical one (not an angle, "rad", nor a pure
 * number, "1" or none): x and y of the rolling ball (m), not its angles.  Fills INDEX (room
 * for model->m) with their positions in [algebroid] base and *UNIT (owned by the model);
 * returns how many, 0 when the model has no such position. */
guint           cml_model_position_coords (const CmlModel *model, guint *index, const char **unit);
/* The line of "key" in "[group]" (0 if unknown). */
int             cml_model_line (const CmlModel *model, const char *group, const char *key);

const char *cml_constraint_kind_to_string (CmlConstraintKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlModel, cml_model_unref)

G_END_DECLS
