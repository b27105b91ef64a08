/* cml-error.c — the CML_ERROR domain's quark.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-error"

#include "cml-error.h"

G_DEFINE_QUARK (cml-error-quark, cml_error)
