/* cml-error.h — the CML_ERROR domain shared by every layer of cmlab.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CML_ERROR (cml_error_quark ())

typedef enum
{
  CML_ERROR_PARSE,        /* bad expression syntax */
  CML_ERROR_UNKNOWN_NAME, /* an identifier that is not declared */
  CML_ERROR_ARITY,        /* a function called with the wrong number of arguments */
  CML_ERROR_MODEL,        /* a model file that is inconsistent or incomplete */
  CML_ERROR_SINGULAR,     /* a regularity matrix that is singular */
  CML_ERROR_UNSUPPORTED,  /* a valid model that this version cannot treat */
  CML_ERROR_NUMERIC,      /* a run that failed: non-finite state, step underflow */
  CML_ERROR_IO,           /* files */
  CML_ERROR_USAGE,        /* bad options or arguments */
  CML_ERROR_UNREACHABLE,  /* a shooting's targets off the set its extremals reach */
  CML_ERROR_CANCELLED,    /* a long computation stopped on request (its cancel flag set) */
} CmlErrorCode;

GQuark cml_error_quark (void);

G_END_DECLS
