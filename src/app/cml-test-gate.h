/* cml-test-gate.h — a test's gate: work on a worker thread that waits, before it begins,
 * until a test lets it go (the file named by an environment variable exists).  A test can
 * then see the window answer while the work is pending on any machine, however fast the
 * work would be.  Without the variable (every real run) the gate is open.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once
#include <glib.h>

G_BEGIN_DECLS

/* Waits (on the calling worker thread) until the file named by the environment variable
 * ENV_NAME exists; returns at once when the variable is unset or empty. */
void cml_test_gate_wait (const char *env_name);

G_END_DECLS
