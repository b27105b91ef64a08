/* cml-lesson-handout.h — `cmlab-cli lesson handout LESSON -o FILE.pdf`: a printable
 * worksheet of a lesson, a page for each step (in cmlab-cli-render: it draws).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ARGC, ARGV: the arguments after `lesson handout`. */
int cml_lesson_handout_main (int argc, char **argv);

G_END_DECLS
