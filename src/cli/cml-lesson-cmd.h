/* cml-lesson-cmd.h — `cmlab-cli lesson check|show|export`: a lesson (cml-lesson.h) on the
 * command line: every step walked and every prediction checked against its run; the lesson
 * printed for reading; the students' copy, with the answers and hidden values left out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

G_BEGIN_DECLS

int cml_lesson_main (int argc, char **argv);

G_END_DECLS
