/* cml-model-private.h — what the files that read a model share: the loader's state,
 * the kinds of names, and the pieces of reading used across them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-model.h"

G_BEGIN_DECLS

/* What kind of thing a symbol of the model's context names. */
typedef enum
{
  SYM_NONE = 0,
  SYM_PARAM = 1 << 0,
  SYM_TIME = 1 << 1,
  SYM_BASE = 1 << 2,
  SYM_FIBRE = 1 << 3,
  SYM_MOMENTUM = 1 << 4,
  SYM_SECTION = 1 << 5,
  SYM_RECON = 1 << 6,
  SYM_DEFINITION = 1 << 7,
  SYM_MONITOR = 1 << 8,
  SYM_INITIAL = 1 << 9, /* [reference]: an observable's value at t = 0, "x_0" */
  SYM_MULTIPLIER = 1 << 10, /* a constraint's multiplier, "lambda_roll_x" (scene, units, meanings, columns) */
} SymKind;

/* Where a group or a key stands in the file, and what it holds. */
typedef struct
{
  int        line;
  int        value_col; /* 1-based column where the value starts */
  char      *value;     /* a key's value, as kf_value () gives it; NULL for a group */
  GPtrArray *keys;      /* a group's keys (char*) in the order of the file; NULL for a key */
} Pos;

typedef struct
{
  const char *path;
  CmlModel   *model;
  GKeyFile   *kf;        /* NULL unless the file needs GKeyFile's reading (cml-model.c) */
  GPtrArray  *groups;    /* the groups' names in the order of the file (owned by pos) */
  GHashTable *pos;       /* "group\nkey" or "group" -> Pos* */
  GHashTable *kinds;     /* symbol id -> SymKind (GINT_TO_POINTER) */
  GArray     *def_ids;   /* int */
  GPtrArray  *def_exprs; /* CmlExpr* (already expanded) */
  GPtrArray  *def_names; /* char*, owned */
  GArray     *mon_ids;   /* int: monitors, substituted in scene expressions */
  GPtrArray  *mon_exprs; /* CmlExpr* */
  GError    **error;
} Loader;

/* cml-model.c: errors, the line map, names, expressions, keys */
G_GNUC_PRINTF (5, 6)
gboolean    fail (Loader *ld, int line, int col, int code, const char *fmt, ...);
Pos        *pos_of (Loader *ld, const char *group, const char *key);
int         line_of (Loader *ld, const char *group, const char *key);
gboolean    is_identifier (const char *s);
const char *kind_name (SymKind k);
SymKind     sym_kind (Loader *ld, int id);
int         declare (Loader *ld, const char *name, SymKind kind, int line);
GPtrArray  *split_top (const char *s, char sep, GArray *offsets);
GPtrArray  *name_list (const char *value);
gboolean    check_expr_budget (Loader *ld, int line, int col, const char *what);
CmlExpr    *parse_at (Loader *ld, const char *text, int line, int col, guint allowed, const char *what);
CmlExpr    *parse_key (Loader *ld, const char *group, const char *key, guint allowed, const char *what);
gboolean    parse_number (const char *s, double *out);
gboolean    eval_constant (Loader *ld, const char *group, const char *key, const char *text, double *out);
gboolean    check_keys (Loader *ld, const char *group, const char *const *known);
gboolean    kf_has_group (Loader *ld, const char *group);
gboolean    kf_has_key (Loader *ld, const char *group, const char *key);
char       *kf_value (Loader *ld, const char *group, const char *key);
char      **kf_keys (Loader *ld, const char *group);
char      **kf_groups (Loader *ld);
char       *get_string (Loader *ld, const char *group, const char *key);
gboolean    locale_key_split (const char *key, char **base, char **locale);
char       *get_translation (Loader *ld, const char *group, const char *key);
char       *get_locale_string (Loader *ld, const char *group, const char *key);

/* cml-model-mechanics.c */
gboolean load_model_group (Loader *ld);
void     param_free (gpointer p);
gboolean load_parameters (Loader *ld);
/* cml-model-require.c: [parameters] require */
gboolean load_requirements (Loader *ld);
void     requirement_free (gpointer p);
gboolean load_algebroid_names (Loader *ld);
gboolean load_anchor (Loader *ld);
gboolean load_invariants (Loader *ld);
gboolean load_brackets (Loader *ld);
void     named_expr_free (gpointer p);
gboolean load_dynamics (Loader *ld);
gboolean load_forces (Loader *ld);
gboolean load_definitions (Loader *ld);
gboolean declare_reconstruction (Loader *ld);
gboolean declare_multipliers (Loader *ld);
gboolean load_reconstruction (Loader *ld);
gboolean load_monitors (Loader *ld);
gboolean is_state_name (Loader *ld, const char *name);
gboolean load_initial (Loader *ld);

/* cml-model-presentation.c */
gboolean load_units (Loader *ld);
gboolean load_meanings (Loader *ld);
gboolean load_symbols (Loader *ld);
gboolean load_labels (Loader *ld);
gboolean load_output (Loader *ld);
void     preset_free (gpointer p);
gboolean load_preset (Loader *ld, const char *group);
void     scene_object_free (gpointer p);
gboolean load_scene_object (Loader *ld, const char *group);
gboolean load_reference (Loader *ld);

G_END_DECLS
