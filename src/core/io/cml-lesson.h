/* cml-lesson.h — a lesson: an ordered list of steps, each a complete state of a run with a
 * caption for the class and, optionally, a prediction the class makes before the motion
 * answers it.  A documented key file (.cmllesson), read and written here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Format:
 *
 *   [lesson]
 *   format = cmlab-lesson 1
 *   title = The ball on a turning table         (title[es] = … : translations, as models)
 *   description = …                             (optional)
 *
 *   [step 1]                                    (steps in the order of their numbers)
 *   caption = The table is still: …             (for the class; caption[es] = …)
 *   notes = …                                   (for the teacher, optional)
 *   model = rolling-ball                        (a built-in, or a model file beside the lesson)
 *   param.Omega = 0                             (parameters not given keep the model's values)
 *   init.x = 1                                  (initial data not given keep the model's)
 *   integrator = auto   rtol = 1e-10   atol = 1e-12   step = 0.001   (optional)
 *   t-end = 20                                  (how long the step plays, in the model's time unit)
 *   view.KEY = VALUE                            (window settings, as a session's [view])
 *   hidden = Omega                              (parameters students do not see, ';'-separated)
 *
 *   question = How far from the axis is the ball at t = 20?   (optional: the prediction)
 *   choices = It flies off; It stays within 2 m                (a choice question), or
 *   unit = m                                                   (a number question)
 *   answer = 2                                  (the right choice, from 1; or the number)
 *   tolerance = 0.05                            (a number answer: how far is right)
 *   quantity = radius   at = 20                 (the observable and time that answer it)
 *   check = < 2                                 (a choice question: what the quantity does at
 *                                                that time for the answer to be right:
 *                                                "< V", "> V", or "= V ± TOL")
 *   afterwards = …                              (what to say once the motion has answered)
 *
 * A student's copy (`cmlab-cli lesson export --student`) is a lesson with what students must
 * not see left out:
 *
 *   [lesson]  copy = student                    (questions may then come without answers)
 *   [step N]  param.m2 = ?                      ("?" only for a parameter listed in hidden)
 *             motion = step-4.csv               (required when a parameter is "?")
 *
 * It has no notes, answer, tolerance, check or afterwards (nor their translations); a
 * hidden parameter's value is written "?", and a step that has one cannot be run without
 * it, so it plays its recorded motion: MOTION names a file beside the lesson as
 * `cmlab-cli simulate` writes CSV — '#' lines, a line of names starting with t, then rows
 * of numbers (%.17g) — holding every observable of the step's model (cmlab-cli list
 * observables MODEL) from t = 0 to the step's t-end (or, without one, its prediction's
 * time or 10) at 1000 equal steps, with a row at exactly the prediction's time.  The
 * window draws and plots the step from those rows and shows a hidden parameter as "?".
 *
 * Numbers are written with %.17g in the C locale, so a lesson saved and reopened gives
 * every step's state bit for bit.  The loader checks what it can without running: the
 * model loads, every parameter and initial datum is the model's and in range, a
 * prediction's fields agree; cml_lesson_step_outcome () runs a step to its prediction's
 * time and says whether the answer holds.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

#define CML_LESSON_FORMAT "cmlab-lesson 1"
/* A lesson file, in bytes, and its steps: a forged file must not take the window. */
#define CML_LESSON_MAX_BYTES (1024 * 1024)
#define CML_LESSON_MAX_STEPS 200
/* A recorded motion's file, in bytes. */
#define CML_LESSON_MAX_MOTION_BYTES (64 * 1024 * 1024)

typedef enum
{
  CML_PREDICTION_NONE,
  CML_PREDICTION_CHOICE,
  CML_PREDICTION_NUMBER,
} CmlPredictionKind;

/* A step's recorded motion: the rows of a CSV file (see above). */
typedef struct
{
  char  **names;   /* the columns, "t" first, NULL-terminated */
  guint   n_cols, n_rows;
  double *values;  /* row-major: values[row * n_cols + col]; t increases */
} CmlLessonMotion;

typedef struct
{
  CmlPredictionKind kind;
  char   *question;
  char  **choices;    /* CHOICE: NULL-terminated */
  guint   answer;     /* CHOICE: the right choice, from 1 */
  double  value;      /* NUMBER: the right number … */
  double  tolerance;  /* … and how far from it is right (≥ 0) */
  char   *unit;       /* NUMBER: the answer's unit, or NULL */
  char   *quantity;   /* the observable that answers it, at time AT */
  double  at;
  char    check_op;   /* CHOICE: '<', '>' or '=': the quantity at AT against CHECK_VALUE */
  double  check_value, check_tolerance;
  char   *afterwards;
  gboolean no_answer; /* TRUE in a student's copy: ANSWER, VALUE, TOLERANCE and the check mean nothing */
} CmlPrediction;

typedef struct
{
  char                *caption, *notes;
  char                *model_ref;  /* as written: a built-in's name or a path relative to the lesson */
  CmlModel            *model;      /* loaded */
  GHashTable          *params;     /* name -> double*: the parameters given */
  GHashTable          *initial;    /* name -> double*: the initial data given */
  CmlIntegratorOptions integrator;
  double               t_end;      /* 0: not given */
  GHashTable          *view;       /* key -> string */
  char               **hidden;     /* parameter names, NULL-terminated (may be empty) */
  CmlPrediction        prediction;
  GHashTable          *translations; /* "caption[es]" … -> string, kept as read */
  char               **unknown;    /* hidden parameters written "?" (not in PARAMS), NULL-terminated */
  char                *motion_ref; /* the recorded motion's file as written, or NULL */
  CmlLessonMotion     *motion;     /* loaded, or NULL */
} CmlLessonStep;

typedef struct
{
  char      *title, *description;
  GPtrArray *steps;  /* CmlLessonStep* */
  GHashTable *translations; /* "title[es]" … -> string, kept as read */
  char      *path;   /* where it was read from, or NULL */
  gboolean   student; /* a student's copy (copy = student) */
} CmlLesson;

/* A prediction's strings freed (and its fields zeroed: CML_PREDICTION_NONE); a deep copy
 * into TO (whose old contents are not freed). */
void       cml_prediction_clear (CmlPrediction *pr);
void       cml_prediction_copy (CmlPrediction *to, const CmlPrediction *from);
/* A choice question's check as written in the file ("< 2", "> 0.5", "= 3 ± 0.1"; "+-" is
 * read as "±"), read and written (%.17g: bit for bit). */
gboolean   cml_prediction_parse_check (const char *text, char *op, double *value, double *tol);
char      *cml_prediction_format_check (const CmlPrediction *pr);

/* Reads and checks a lesson; every error names the file and, where there is one, the line
 * ("PATH:LINE: …").  Errors: CML_ERROR_IO, CML_ERROR_PARSE, CML_ERROR_MODEL. */
CmlLesson *cml_lesson_load (const char *path, GError **error);
/* Writes atomically (all or nothing).  Errors: CML_ERROR_IO. */
gboolean   cml_lesson_save (const CmlLesson *lesson, const char *path, GError **error);
void       cml_lesson_free (CmlLesson *lesson);
/* A lesson with TITLE and no steps yet (one being written), and a step's freeing (the
 * steps array's own: a step added to it belongs to it). */
CmlLesson *cml_lesson_new (const char *title);
void       cml_lesson_step_free (CmlLessonStep *step);
/* TEXT, or its translation KEY[LANG] in TRANSLATIONS (a lesson's or a step's, as read) for
 * the first of the user's languages (g_get_language_names ()) that has one. */
const char *cml_lesson_translated (GHashTable *translations, const char *key, const char *text);

/* A simulation at STEP's state: its model's system derived, its parameters, integrator
 * and initial data set (the constraints solved or projected), at t = 0.  NULL (with ERROR)
 * when the step cannot be run: a parameter written "?" (the step plays its recorded
 * motion), or initial data the model refuses. */
CmlSimulation *cml_lesson_step_simulation (const CmlLessonStep *step, GError **error);

/* Runs STEP from its state to its prediction's time and reads the quantity there into
 * *VALUE — from the recorded motion when the step has one (interpolated linearly between
 * rows) — and *RIGHT says whether the lesson's answer holds for it (a number within the
 * tolerance; a choice whose check the value meets; FALSE when the copy holds no answer).
 * FALSE (with ERROR) when the step has no prediction or the run fails. */
gboolean   cml_lesson_step_outcome (const CmlLessonStep *step, double *value, gboolean *right,
                                    GError **error);

/* Reads a recorded motion (the format above; at most CML_LESSON_MAX_MOTION_BYTES).
 * Errors name PATH and the line: CML_ERROR_IO, CML_ERROR_PARSE. */
CmlLessonMotion *cml_lesson_motion_load (const char *path, GError **error);
/* The column NAME at time T, interpolated linearly between rows; FALSE when there is no
 * such column or T is outside the rows. */
gboolean         cml_lesson_motion_value (const CmlLessonMotion *motion, const char *name, double t,
                                          double *value);
void             cml_lesson_motion_free (CmlLessonMotion *motion);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlLesson, cml_lesson_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlLessonMotion, cml_lesson_motion_free)

G_END_DECLS
