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

/* As cml_test_gate_wait, and says where the work came to the gate: the file named by the
 * variable with ".held" appended reads "worker" (a thread of its own, held there) or
 * "window" (the process's first thread, the window's — never held: a window that stopped
 * would hang the test instead of failing it).  Nothing when the variable is unset. */
void cml_test_gate_hold (const char *env_name);

G_END_DECLS
