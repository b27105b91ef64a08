/* cml-equations-account.h — the equations page's account of a system (its equations
 * typeset, the conserved-quantity inspector's verdicts), made on a worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "cml-conserved.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlAccountJob CmlAccountJob;

/* Called on the thread that started the job, once it is done, unless OWNER is gone. */
typedef void (*CmlAccountDone) (CmlAccountJob *job, gpointer owner);

/* Begins making the account of SYS's model at the parameters PARAMS (the model's order;
 * NULL: the model's), with the typeset equations when WITH_TEXT.  UI thread. */
CmlAccountJob *cml_account_job_start (CmlSystem *sys, const double *params, gboolean with_text,
                                      GObject *owner, CmlAccountDone done);
CmlAccountJob *cml_account_job_ref (CmlAccountJob *job);
void           cml_account_job_unref (CmlAccountJob *job);
/* Waits for the job's end (for a reader that needs the account now). */
void           cml_account_job_wait (CmlAccountJob *job);
gboolean       cml_account_job_is_done (CmlAccountJob *job);
/* After the end: the account's text (NULL without WITH_TEXT or on an error), the verdicts
 * (the job's; NULL on an error) and why it failed (or NULL). */
const char    *cml_account_job_get_text (CmlAccountJob *job);
CmlConservedReport *cml_account_job_steal_report (CmlAccountJob *job);
const char    *cml_account_job_get_error (CmlAccountJob *job);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlAccountJob, cml_account_job_unref)

G_END_DECLS
