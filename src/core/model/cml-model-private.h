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
  char      *value;     /* a key's value, as cml_model_kf_value () gives it; NULL for a group */
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

/* cml-model.c: errors, the line map, names, expressions */
G_GNUC_PRINTF (5, 6)
gboolean    cml_model_fail (Loader *ld, int line, int col, int code, const char *fmt, ...);
Pos        *cml_model_pos_of (Loader *ld, const char *group, const char *key);
int         cml_model_line_of (Loader *ld, const char *group, const char *key);
gboolean    cml_model_is_identifier (const char *s);
const char *cml_model_kind_name (SymKind k);
SymKind     cml_model_sym_kind (Loader *ld, int id);
int         cml_model_declare (Loader *ld, const char *name, SymKind kind, int line);
GPtrArray  *cml_model_split_top (const char *s, char sep, GArray *offsets);
GPtrArray  *cml_model_name_list (const char *value);
gboolean    cml_model_check_expr_budget (Loader *ld, int line, int col, const char *what);
CmlExpr    *cml_model_parse_at (Loader *ld, const char *text, int line, int col, guint allowed,
                                const char *what);
CmlExpr    *cml_model_parse_key (Loader *ld, const char *group, const char *key, guint allowed,
                                 const char *what);
gboolean    cml_model_parse_number (const char *s, double *out);
gboolean    cml_model_eval_constant (Loader *ld, const char *group, const char *key,
                                     const char *text, double *out);
gboolean    cml_model_scan_lines (Loader *ld, const char *text, gboolean *unusual);

/* cml-model-keys.c: the groups and keys */
gboolean    cml_model_check_keys (Loader *ld, const char *group, const char *const *known);
gboolean    cml_model_kf_has_group (Loader *ld, const char *group);
gboolean    cml_model_kf_has_key (Loader *ld, const char *group, const char *key);
char       *cml_model_kf_value (Loader *ld, const char *group, const char *key);
char      **cml_model_kf_keys (Loader *ld, const char *group);
char      **cml_model_kf_groups (Loader *ld);
char       *cml_model_get_string (Loader *ld, const char *group, const char *key);
gboolean    cml_model_locale_key_split (const char *key, char **base, char **locale);
char       *cml_model_get_translation (Loader *ld, const char *group, const char *key);
char       *cml_model_get_locale_string (Loader *ld, const char *group, const char *key);
gboolean    cml_model_check_translations (Loader *ld);
gboolean    cml_model_check_groups (Loader *ld);

/* cml-model-mechanics.c */
gboolean cml_model_load_model_group (Loader *ld);
void     cml_model_param_free (gpointer p);
gboolean cml_model_load_parameters (Loader *ld);
/* cml-model-require.c: [parameters] require */
gboolean cml_model_load_requirements (Loader *ld);
void     cml_model_requirement_free (gpointer p);
gboolean cml_model_load_algebroid_names (Loader *ld);
gboolean cml_model_load_anchor (Loader *ld);
gboolean cml_model_load_invariants (Loader *ld);
gboolean cml_model_load_brackets (Loader *ld);
void     cml_model_named_expr_free (gpointer p);
gboolean cml_model_load_dynamics (Loader *ld);
gboolean cml_model_load_forces (Loader *ld);
gboolean cml_model_load_definitions (Loader *ld);
gboolean cml_model_declare_reconstruction (Loader *ld);
gboolean cml_model_declare_multipliers (Loader *ld);
gboolean cml_model_load_reconstruction (Loader *ld);
gboolean cml_model_load_monitors (Loader *ld);
gboolean cml_model_is_state_name (Loader *ld, const char *name);
gboolean cml_model_load_initial (Loader *ld);

/* cml-model-presentation.c */
gboolean cml_model_load_units (Loader *ld);
gboolean cml_model_load_meanings (Loader *ld);
gboolean cml_model_load_symbols (Loader *ld);
gboolean cml_model_load_labels (Loader *ld);
gboolean cml_model_load_output (Loader *ld);
void     cml_model_preset_free (gpointer p);
gboolean cml_model_load_preset (Loader *ld, const char *group);
void     cml_model_scene_object_free (gpointer p);
gboolean cml_model_load_scene_object (Loader *ld, const char *group);
gboolean cml_model_load_reference (Loader *ld);

G_END_DECLS
