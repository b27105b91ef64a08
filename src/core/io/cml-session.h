/* cml-session.h — a saved session: the model (embedded), parameters, initial data,
 * integrator and view settings, in a documented key file (doc/command-line.md, "Sessions").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model's text is embedded, so a session opens on a machine that does not have the
 * model file.  The initial state is stored in full precision; replaying with the same
 * integrator gives the same trajectory bit for bit.  Files are written through
 * cml-atomic-file.c (all or nothing; a read-only file is refused, a symbolic link is
 * followed); numbers with g_ascii_formatd, whatever the locale.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-system.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

#define CML_SESSION_FORMAT "cmlab-session 1"

/* [view] is free-form, but bounded: a forged file that lists 10⁵ plots must not hang the
 * window.  The loader refuses more keys or longer values; the window shows at most
 * CML_SESSION_MAX_VIEW_PLOTS series per plot. */
#define CML_SESSION_MAX_VIEW_KEYS   64
#define CML_SESSION_MAX_VIEW_VALUE  4096 /* bytes */
#define CML_SESSION_MAX_VIEW_PLOTS  16
/* A session file, in bytes: its model (at most 1 MiB, twice that escaped), the numbers and
 * [view] fit; a larger file is refused before it is parsed. */
#define CML_SESSION_MAX_BYTES       (4 * 1024 * 1024)

typedef struct
{
  CmlModel            *model;
  GHashTable          *params;    /* name -> double*: every parameter */
  GHashTable          *initial;   /* name -> double*: every state component at t = 0 */
  CmlIntegratorOptions integrator;
  GHashTable          *view;      /* key -> string: settings of the window (camera, plots …) */
  char                *path;      /* where it was read from, or NULL */
  CmlSystem           *system;    /* the derived system of a session made from a simulation
                                   * (cml_session_new), else NULL (derive it from MODEL) */
} CmlSession;

/* Captures SIM's model, parameters and integrator, with INITIAL_STATE (the state at t = 0,
 * cml_system_dim values) and VIEW (may be NULL; key -> string, copied). */
CmlSession *cml_session_new (CmlSimulation *sim, const double *initial_state, GHashTable *view);
void        cml_session_free (CmlSession *session);

/* Writes atomically (cml_atomic_file_set_contents).  Errors: CML_ERROR_IO. */
gboolean    cml_session_save (CmlSession *session, const char *path, GError **error);
/* Reads and validates: the format line, the embedded model (its errors are reported as
 * "PATH:LINE: embedded model:LINE: …"), parameters (known, in range), initial data (known
 * names), the integrator.  Every error names the file, and the line where there is one
 * ("PATH:LINE: …").  Errors: CML_ERROR_IO (a file that cannot be read), CML_ERROR_PARSE,
 * CML_ERROR_MODEL. */
CmlSession *cml_session_load (const char *path, GError **error);

/* A simulation set up as the session says (t = 0).  SYS_OUT (may be NULL) receives the
 * derived system with a reference. */
CmlSimulation *cml_session_make_simulation (CmlSession *session, CmlSystem **sys_out,
                                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSession, cml_session_free)

G_END_DECLS
