/* cml-application.h — the application (libadwaita's): command line, style, app-wide
 * actions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `cmlab [FILE.cml…]` opens model files; `--model NAME` a built-in; `--play` starts the
 * run; `--presentation` starts in presentation mode; `--quit-after SECONDS` closes the
 * window after that much wall time and `--frame-stats FILE` then writes the frame-clock
 * statistics as JSON (benchmarks).  UI thread.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CML_TYPE_APPLICATION (cml_application_get_type ())
G_DECLARE_FINAL_TYPE (CmlApplication, cml_application, CML, APPLICATION, AdwApplication)

CmlApplication *cml_application_new (void);

G_END_DECLS
