/* cml-lesson-apply.h — what a program showing a lesson needs from one step: its state as a
 * session (to open it as a session opens), its texts in the reader's language, and the
 * verdict on the class's answer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-lesson.h"
#include "cml-session.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

/* STEP's state as a session (free it): its model (a reference), the parameters and
 * initial data it gives (the others stay the model's), its integrator and its view
 * settings.  Any thread. */
CmlSession *cml_lesson_step_session (const CmlLessonStep *step);
/* The step a session is (its inverse, for writing a lesson from a window's state): the
 * session's model — named as a built-in when a built-in of that name has its very text,
 * else by the file it was read from when that file still holds it, else refused
 * (CML_ERROR_USAGE: the lesson could not be reopened with it) — every parameter and
 * initial datum, the integrator and the view settings, with CAPTION; no question.  Every
 * number is the session's, so the step written (%.17g) and read back is the session bit
 * for bit.  Any thread. */
CmlLessonStep *cml_lesson_step_new_from_session (const CmlSession *session, const char *caption,
                                                 GError **error);

/* cml_lesson_step_simulation () on SYS, a system already derived (of STEP's model, or of a
 * model with the same text): its parameters, integrator and initial data, at t = 0; NULL
 * (with ERROR) for a parameter written "?".  On the thread that uses SYS's model
 * (cml_runner_set_integrator's rule). */
CmlSimulation *cml_lesson_step_simulation_on (const CmlLessonStep *step, CmlSystem *sys,
                                              GError **error);
/* Advances SIM (made as above) to PR's time and reads PR's quantity there into *VALUE
 * (cml_lesson_step_outcome's reading).  Any one thread at a time: a worker may do it. */
gboolean    cml_lesson_prediction_read (const CmlPrediction *pr, CmlSimulation *sim, double *value,
                                        GError **error);

/* A step's text KEY ("caption", "question", "afterwards", "notes", "unit") in the user's language
 * (its "KEY[es]" translation when the language is Spanish), else as written; NULL when
 * the step has none. */
const char *cml_lesson_step_text (const CmlLessonStep *step, const char *key);
/* The choices of STEP's choice question in the user's language (free with g_strfreev). */
char      **cml_lesson_step_choices (const CmlLessonStep *step);
/* The lesson's title in the user's language. */
const char *cml_lesson_title (const CmlLesson *lesson);

/* Whether the lesson's answer holds for VALUE, the quantity read at the prediction's time
 * (the rule of cml_lesson_step_outcome). */
gboolean    cml_prediction_holds (const CmlPrediction *pr, double value);
/* Whether the class's answer is right once the run has given VALUE: a choice (CHOICE, from
 * 1) is right when it is the lesson's answer and that answer holds; a number (NUMBER) when
 * it is within the lesson's tolerance of VALUE. */
gboolean    cml_prediction_class_right (const CmlPrediction *pr, double value, guint choice,
                                        double number);

G_END_DECLS
