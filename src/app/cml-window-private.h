/* cml-window-private.h — the window's fields, shared by cml-window.c,
 * cml-window-actions.c and the tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "cml-equations-panel.h"
#include "cml-export-dialog.h"
#include "cml-frame-stats.h"
#include "cml-json.h"
#include "cml-lesson.h"
#include "cml-model-picker.h"
#include "cml-parameter-panel.h"
#include "cml-pen-layer.h"
#include "cml-plot-queue.h"
#include "cml-plot-view.h"
#include "cml-scene-view.h"
#include "cml-section-view.h"
#include "cml-timeline.h"
#include "cml-window.h"

G_BEGIN_DECLS

/* Speeds offered, simulated seconds per wall second (log steps). */
#define CML_N_SPEEDS 10
extern const double cml_window_speeds[CML_N_SPEEDS];
#define CML_DEFAULT_SPEED_INDEX 3 /* ×1 */

/* Integrator tolerances offered (relative; absolute = 1/100 of it). */
#define CML_N_TOLERANCES 4
extern const double cml_window_tolerances[CML_N_TOLERANCES];
#define CML_DEFAULT_TOLERANCE_INDEX 2 /* 1e-10, the integrator's default */
/* the steps offered for the fixed-step integrators (implicit midpoint, variational) */
#define CML_N_STEPS 5
extern const double cml_window_steps[CML_N_STEPS];
#define CML_DEFAULT_STEP_INDEX 4 /* 0.001 s, the integrator's default */

struct _CmlWindow
{
  GtkApplicationWindow parent_instance;

  /* template: header bar */
  GtkHeaderBar      *header_bar;
  GtkToggleButton   *sidebar_button;
  GtkMenuButton     *systems_button;
  GtkButton         *play_button;
  GtkButton         *step_button;
  GtkButton         *reset_button;
  GtkDropDown       *speed_dropdown;
  GtkLabel          *title_label;
  GtkLabel          *subtitle_label;
  GtkDropDown       *integrator_dropdown;
  GtkDropDown       *tolerance_dropdown;
  GtkDropDown       *step_dropdown;
  GtkButton         *open_button;
  GtkMenuButton     *menu_button;
  /* template: body */
  GtkPaned          *outer_paned;
  GtkPaned          *content_paned;
  CmlModelPicker    *model_picker;
  CmlParameterPanel *parameter_panel;
  GtkStack          *scene_stack;
  CmlSceneView      *scene_view;
  GtkLabel          *error_title;
  GtkLabel          *error_detail;
  GtkWidget         *error_retry_button;
  AdwToastOverlay   *toast_overlay;
  GtkStack          *side_stack;
  GtkStackSwitcher  *side_switcher;
  GtkPaned          *plots_paned;
  CmlPlotView       *time_plot;
  CmlPlotView       *phase_plot;
  CmlEquationsPanel *equations_panel;
  CmlSectionView    *section_view;   /* the Poincaré section page */
  CmlTimeline       *timeline;       /* the timeline in the status line */
  /* template: status line */
  GtkLabel          *time_label;
  GtkLabel          *speed_label;
  GtkLabel          *state_label;
  GtkLabel          *message_label;
  GtkBox            *failure_box;
  GtkLabel          *failure_label;
  GtkMenuButton     *failure_details_button;
  GtkLabel          *failure_explanation;
  GtkLabel          *failure_technical;
  GtkButton         *failure_reset_button;
  /* template: the card over the view while a model's equations are derived */
  GtkWidget         *derive_box;
  GtkSpinner        *derive_spinner;
  GtkLabel          *derive_label;
  GtkLabel          *derive_detail;
  GtkWidget         *derive_cancel_button;

  /* the simulation */
  CmlRunner         *runner;
  CmlSystem         *system;         /* the one chosen: commands and panels refer to it */
  CmlSystem         *shown_system;   /* the one the views show: follows the frames */
  GHashTable        *systems;        /* CmlModel* (ref) -> CmlSystem* (ref): switching is instant */
  /* deriving off this thread (cml-window-derive.c) */
  GHashTable        *derivations;    /* CmlModel* -> CmlDerivation*: begun, not yet taken (one per model) */
  struct _CmlPendingOpen *pending_open; /* the model the window waits for, or NULL */
  CmlModel          *compare_pending; /* the vakonomic reading whose system a comparison waits for, or NULL */
  CmlModel          *compare_source;  /* the model it reads (for the card) */
  gint64             compare_started_us;
  GHashTable        *vakonomic_of;   /* CmlModel* (ref) -> its vakonomic reading, CmlModel* (ref) */
  guint              derive_clock;   /* the card's elapsed seconds */
  guint              checks_running; /* trial runs begun on a worker, not yet ended */
  guint              speed_index;
  CmlIntegratorOptions integrator;

  /* the tick callback and the history it copies */
  guint              tick_id;
  guint64            history_cursor;
  double            *history_t;
  double            *history_rows;
  guint              history_cap;    /* rows the buffers hold */
  guint              history_cols;   /* n_observables + n_scene_values of shown_system */
  CmlPlotQueue      *plot_queue[2];  /* time_plot, phase_plot: rows waiting (they take turns at redrawing) */
  guint64            tick_count;
  double             last_sample_t;  /* a row at or before it starts a new run */
  guint              run_generation; /* the frame generation of the run the views show */
  CmlRunnerState     shown_state;
  gint64             last_status_us;
  gint64             last_equations_us;
  double             rate_t0;        /* simulated time at rate_wall0, for the effective speed */
  gint64             rate_wall0;
  double             effective_speed;
  /* timeline: at a recorded moment or backwards the plots and trails show the run up to
   * the frame's time; INFINITY: everything read */
  double             shown_until;
  gint64             shown_until_us;

  /* view settings */
  gboolean           layout_done;
  int                last_layout_w;           /* the content's width at the last tick */
  int                layout_wait;             /* ticks to wait before laying out again */
  gboolean           presentation;
  double             text_scale;              /* presentation type: window height / 800, ≥ 1 */
  GtkCssProvider    *text_css;                /* the presentation font size it gives */
  gboolean           table_frame;
  gboolean           sidebar_visible;
  /* the layout presentation mode replaced, restored when it ends */
  gboolean           saved_sidebar_visible;
  int                saved_content_position;  /* -1: none saved */
  GSettings         *settings;                /* window size and panes, or NULL without the schema */
  gboolean           fixed_size;              /* --window-size: neither restore nor remember */
  int                fixed_w, fixed_h;
  int                fixed_tries;
  AdwToast          *toast;                   /* the toast shown now, or NULL */
  guint              n_toasts;                /* toasts shown since the window opened … */
  char              *last_toast;              /* … and the newest one's text (stays after it goes) */
  char              *failed_path;             /* the model file that failed to load, for "Open Again" */
  char              *failure_shown;           /* the runner message the status line explains */

  /* --screenshot: a PNG of the window when --quit-after ends the run */
  char              *screenshot_path;

  /* frame statistics (--frame-stats, --quit-after) */
  CmlFrameStats     *frame_stats;
  CmlFrameStats     *recent_frames;  /* the newest frame intervals, for the state file */
  char              *frame_stats_path;
  double             quit_after;
  gint64             first_frame_us;
  gboolean           quitting;
  gboolean           picking;        /* a drag in a phase portrait is choosing the start */

  GtkFileChooserNative *chooser;

  /* sessions and data export (cml-window-io.c) */
  GtkFileChooserNative *io_chooser;  /* save/open session, export data */
  int                io_kind;
  GHashTable        *run_given;      /* name -> double*: what the current run was reset from (NULL: the model's) */
  GHashTable        *pending_view;   /* key -> string: plot settings of an opened session, for when the plots show its system */
  GMenu             *recent_section; /* the "Recent Sessions" submenu's items */
  CmlExportDialog   *export_dialog;  /* "Export Animation…", once opened (weak: the toplevel owns it) */

  /* a second run compared with this one (cml-window-compare.c) */
  CmlRunner         *ghost_runner;   /* NULL: no comparison */
  CmlSystem         *ghost_system;
  int                ghost_kind;     /* CmlCompareKind */
  char              *ghost_label;    /* how the legends name it */
  GHashTable        *ghost_given;    /* a copy's own initial values (NULL: the model's) */
  guint64            ghost_cursor;
  double            *ghost_t;        /* its history rows, read each tick */
  double            *ghost_rows;
  guint              ghost_cols;
  guint              ghost_failures; /* failures told (one toast per run) */

  /* a lesson presented (cml-window-lesson.c) */
  CmlLesson         *lesson;          /* NULL: none */
  guint              lesson_step;     /* the step shown (from 0) */
  gboolean           lesson_opened;   /* a step's state is installed */
  guint              lesson_generation; /* the run's generation the step started */
  int                prediction;      /* CmlPredictionShown */
  guint              class_choice;    /* the class's answer: a choice (from 1) … */
  double             class_number;    /* … or a number */
  gboolean           have_outcome;    /* the quantity at the prediction's time is known … */
  double             outcome_value;   /* … and this */
  char              *outcome_error;   /* or why it is not */
  GCancellable      *outcome_cancel;  /* the worker reading it for the step shown */
  gboolean           step_ended;      /* the run reached the step's end and was paused */
  /* template: the lesson's band */
  GtkWidget         *lesson_band;
  GtkLabel          *lesson_caption;
  GtkLabel          *lesson_recorded;
  /* the lesson being written (cml-window-lesson-author.c), and its steps' window */
  CmlLesson         *authored;
  char              *authored_path;
  GtkFileChooserNative *lesson_chooser;
  GtkWidget         *steps_window, *steps_title, *steps_empty, *steps_save;
  GtkListBox        *steps_list;
  GPtrArray         *authored_history; /* the steps' edits, newest last, for undo (cml-window-lesson-author.c) */
  GtkLabel          *lesson_position;
  GtkWidget         *lesson_prediction;
  GtkLabel          *lesson_question;
  GtkBox            *lesson_choices;
  GtkWidget         *lesson_number_box;
  GtkEntry          *lesson_number_entry;
  GtkLabel          *lesson_unit;
  GtkButton         *lesson_number_button;
  GtkLabel          *lesson_outcome;
  GtkLabel          *lesson_afterwards;

  /* template: the pen and the pointer over the view and the plots (cml-window-pen.c) */
  CmlPenLayer       *pen_layer;
};

/* Where a lesson step's prediction is. */
typedef enum
{
  CML_PREDICTION_SHOWN_NONE,     /* the step has none */
  CML_PREDICTION_SHOWN_ASKED,    /* the question, the motion paused */
  CML_PREDICTION_SHOWN_ANSWERED, /* the class answered; the motion plays to the time */
  CML_PREDICTION_SHOWN_OUTCOME,  /* the run reached the time: the outcome and "afterwards" */
} CmlPredictionShown;

/* What the second run is. */
typedef enum
{
  CML_COMPARE_NONE,
  CML_COMPARE_COPY,        /* this run as it is now: change this one, the copy stays */
  CML_COMPARE_VAKONOMIC,   /* the same Lagrangian and constraints, read by the vakonomic principle */
  CML_COMPARE_INTEGRATOR,  /* the same run with another integrator and tolerance */
} CmlCompareKind;

/* cml-window-size.c: the size chosen at start, remembered, or fixed by --window-size
 * (cml_window_open_settings: cml-window.h) */
void       cml_window_choose_size (CmlWindow *self);
void       cml_window_remember_size (CmlWindow *self);
gboolean   cml_window_on_close_request (GtkWindow *window);
void       cml_window_apply_remembered_split (CmlWindow *self);
void       cml_window_fit_fixed_size (CmlWindow *self);

/* cml-window-screenshot.c: the picture written when --quit-after ends the run */
void       cml_window_quit_after_this_frame (CmlWindow *self, GdkFrameClock *clock);

/* cml-window-compare.c: starting and ending a comparison, and every run command passed
 * on to the second run, so that both move together */
gboolean cml_window_compare (CmlWindow *self, CmlCompareKind kind, GError **error);
void     cml_window_compare_stop (CmlWindow *self);
void     cml_window_compare_tick (CmlWindow *self);
void     cml_window_compare_play (CmlWindow *self, gboolean play);
void     cml_window_compare_step (CmlWindow *self, double dt);
void     cml_window_compare_step_back (CmlWindow *self, double dt);
void     cml_window_compare_seek (CmlWindow *self, double t);
void     cml_window_compare_reversed (CmlWindow *self, gboolean reversed);
void     cml_window_compare_speed (CmlWindow *self, double speed);
void     cml_window_compare_reset (CmlWindow *self, GHashTable *given);
void     cml_window_compare_param (CmlWindow *self, const char *name, double value);
void     cml_window_compare_integrator (CmlWindow *self, const CmlIntegratorOptions *options);
void     cml_window_class_add_compare_actions (GtkWidgetClass *widget_class);
void     cml_window_compare_update_actions (CmlWindow *self);
/* The vakonomic reading's SYSTEM derived (or ERROR): the comparison starts, or the error is shown. */
void     cml_window_compare_derived (CmlWindow *self, CmlSystem *system, const GError *error);

/* cml-window-derive.c: a model's system is derived on a worker thread while the window
 * goes on answering (and running the model it shows); the newest model asked for replaces
 * the one waited for.  All: UI thread. */
typedef struct _CmlPendingOpen CmlPendingOpen;
/* Switches to MODEL once its system is derived (at once when it is known); PATH (may be
 * NULL) is the file it came from, for the error shown if it cannot start.  With SESSION
 * (may be NULL; taken), the session is opened then rather than the model's own settings. */
void       cml_window_open_model (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session);
/* The same for a lesson's STEP (from 0): SESSION is the step's state; once it is installed
 * cml_window_lesson_step_opened () shows the step. */
void       cml_window_open_lesson_step (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session,
                                        guint step);
/* The lesson step (from 0) the window waits for, or -1. */
int        cml_window_get_lesson_waiting (CmlWindow *self);
/* Opens the session file PATH as cml_window_open_model opens a model; errors in a dialog. */
void       cml_window_open_session_file (CmlWindow *self, const char *path);
/* MODEL's derived system (a new reference): taken from a derivation begun for it (waiting
 * for its end), else derived here.  With OWN_DATA (may be NULL), why the model's own initial
 * data do not start a run (left NULL when they do): checked with the derivation, on its
 * worker when it was begun there. */
CmlSystem *cml_window_take_derived (CmlWindow *self, CmlModel *model, GError **own_data, GError **error);
/* The name of the model the window waits for, or NULL. */
const char *cml_window_get_deriving (CmlWindow *self);
/* A comparison with VAKONOMIC, the vakonomic reading of the model shown: its system derived
 * on a worker (the card says so; the run goes on), then cml_window_compare_derived is
 * called — at once when it is known.  Replaces a comparison waited for. */
void       cml_window_derive_compare (CmlWindow *self, CmlModel *vakonomic);
/* Gives up waiting for a comparison (its derivation finishes in the background, kept). */
void       cml_window_derive_compare_cancel (CmlWindow *self);
/* Stops waiting: the window stays with the model it shows. */
void       cml_window_stop_waiting (CmlWindow *self);
void       cml_window_derive_init (CmlWindow *self);
void       cml_window_derive_dispose (CmlWindow *self);
void       cml_window_class_add_derive_actions (GtkWidgetClass *widget_class);

/* cml-window-io.c: a session opened onto MODEL (its own or one the window has, with the
 * same text), once MODEL's system is derived */
gboolean   cml_window_apply_session (CmlWindow *self, CmlSession *session, CmlModel *model, const char *path,
                                     GError **error);
/* The same, the trial run of the session's data left out when TRIED (it ran on a worker
 * and went well). */
gboolean   cml_window_apply_session_tried (CmlWindow *self, CmlSession *session, CmlModel *model,
                                           const char *path, gboolean tried, GError **error);
/* A simulation of SYS at t = 0 with PARAMS (name -> double*, may be NULL), INTEGRATOR (may be
 * NULL) and the model's initial data overridden by GIVEN (may be NULL): the check that they
 * start a run.  Any thread; on a worker only once SYS is prepared for INTEGRATOR's kind
 * (cml_system_prepare, on the thread that owns SYS). */
CmlSimulation *cml_window_trial_simulation (CmlSystem *sys, GHashTable *params,
                                            const CmlIntegratorOptions *integrator, GHashTable *given,
                                            GError **error);
/* the model a session's is the same as (one the window has), else the session's */
CmlModel  *cml_window_session_model (CmlWindow *self, CmlSession *session);

/* cml-window-lesson.c: a lesson presented step by step (cml_window_open_lesson: cml-window.h) */
void       cml_window_lesson_step_opened (CmlWindow *self, guint step);
/* Whether the step shown plays its recorded motion (a student's copy without a hidden
 * value): the runner plays the recording instead of integrating (cml_runner_set_recording). */
gboolean   cml_window_lesson_recorded (CmlWindow *self);
/* Writing a lesson (cml-window-lesson-author.c): the window's present state added as the
 * lesson's next step (its number; 0 with ERROR), a step moved BY places or deleted, its
 * texts set (NULL: unchanged), the lesson saved to PATH (NULL: where it was last saved). */
guint      cml_window_lesson_add_step (CmlWindow *self, const char *caption, GError **error);
gboolean   cml_window_lesson_move_step (CmlWindow *self, guint number, int by);
gboolean   cml_window_lesson_delete_step (CmlWindow *self, guint number);
gboolean   cml_window_lesson_set_step_text (CmlWindow *self, guint number, const char *caption, const char *notes);
/* A step's prediction set to a copy of PREDICTION (kind CML_PREDICTION_NONE: none); FALSE
 * with ERROR naming what is wrong and how to mend it, the step unchanged. */
gboolean   cml_window_lesson_set_step_prediction (CmlWindow *self, guint number, const CmlPrediction *prediction,
                                                  GError **error);
/* Undoes the newest move, deletion, text or prediction edit of the steps (Ctrl+Z in the
 * steps' window; the typing of one text in a row is one edit); FALSE when there is none. */
gboolean   cml_window_lesson_undo_step_edit (CmlWindow *self);
guint      cml_window_lesson_n_step_edits (CmlWindow *self);
gboolean   cml_window_lesson_save_authored (CmlWindow *self, const char *path, GError **error);
CmlLesson *cml_window_get_authored (CmlWindow *self);
void       cml_window_lesson_show_steps (CmlWindow *self);
void       cml_window_lesson_author_init (CmlWindow *self);
void       cml_window_lesson_author_dispose (CmlWindow *self);
void       cml_window_class_add_lesson_author_actions (GtkWidgetClass *widget_class);
/* cml-window-lesson-steps.c: the steps' window made again from the lesson being written;
 * cml-window-lesson-author.c: the actions its buttons run ("win.lesson-add-step",
 * "win.lesson-save") */
void       cml_window_lesson_rebuild_steps (CmlWindow *self);
void       cml_window_lesson_add_step_action (GtkWidget *widget, const char *action_name,
                                              GVariant *param);
void       cml_window_lesson_save_action (GtkWidget *widget, const char *action_name,
                                          GVariant *param);
/* Each frame: the step's end and the prediction's time reached. */
void       cml_window_lesson_tick (CmlWindow *self, CmlFrame *frame);
/* The JSON object "lesson" of the state file (null without a lesson). */
void       cml_window_lesson_describe (CmlWindow *self, CmlJson *json);
void       cml_window_class_add_lesson_actions (GtkWidgetClass *widget_class);
void       cml_window_lesson_init (CmlWindow *self);
void       cml_window_lesson_dispose (CmlWindow *self);

/* cml-window-pen.c: the teacher's pen and the hall's pointer (P, L, C or Delete, Escape) */
void       cml_window_pen_init (CmlWindow *self);
void       cml_window_class_add_pen (GtkWidgetClass *widget_class);
/* Leaving presentation mode takes the pointer's ring away. */
void       cml_window_pen_presentation (CmlWindow *self, gboolean presentation);
/* Wipes the drawing (a lesson's step changed). */
void       cml_window_pen_clear (CmlWindow *self);

/* cml-window-actions.c */
void cml_window_class_add_actions (GtkWidgetClass *widget_class);
void cml_window_add_shortcuts (CmlWindow *self);
void cml_window_update_actions (CmlWindow *self);

/* cml-window-io.c */
void cml_window_class_add_io_actions (GtkWidgetClass *widget_class);
void cml_window_io_init (CmlWindow *self);
void cml_window_io_dispose (CmlWindow *self);
void cml_window_apply_pending_view (CmlWindow *self);
void cml_window_set_run_given (CmlWindow *self, GHashTable *given);
/* A copy of FROM (name -> double*; NULL: an empty table). */
GHashTable *cml_window_copy_values (GHashTable *from);
void cml_window_rebuild_recent (CmlWindow *self);

/* cml-window.c, for the actions */
void cml_window_set_sidebar_visible (CmlWindow *self, gboolean visible);
/* A short note over the scene that goes away by itself ("Session saved to …"). */
void cml_window_show_toast (CmlWindow *self, const char *text);
void cml_window_set_speed_index (CmlWindow *self, guint index);
double cml_window_step_size (CmlWindow *self);
gboolean cml_window_get_dark (CmlWindow *self);
void cml_window_set_dark (CmlWindow *self, gboolean dark);
void cml_window_set_presentation (CmlWindow *self, gboolean presentation);
void cml_window_show_integrator_choice (CmlWindow *self);
/* the header bar's dropdowns (cml-window-run-controls.c) */
void cml_window_on_speed_selected (CmlWindow *self);
void cml_window_on_integrator_selected (CmlWindow *self);
void cml_window_set_table_frame (CmlWindow *self, gboolean table_frame);

/* the window's properties (cml-window.c; notified by the files that change them) */
enum
{
  CML_WINDOW_PROP_0,
  CML_WINDOW_PROP_PRESENTATION,
  CML_WINDOW_PROP_DARK,
  CML_WINDOW_PROP_STYLE,
  CML_WINDOW_PROP_TABLE_FRAME,
  CML_WINDOW_PROP_SIDEBAR_VISIBLE,
  CML_WINDOW_N_PROPS
};
extern GParamSpec *cml_window_properties[CML_WINDOW_N_PROPS];

/* cml-window.c: the rows of history handed to the view and the plots */
void cml_window_push_rows (CmlWindow *self, guint start, guint end);

/* cml-window-models.c: choosing, loading and opening models */
void cml_window_on_model_selected (CmlWindow *self, gpointer model);
void cml_window_update_title (CmlWindow *self);

/* cml-window-layout.c: the style, presentation mode, the type's size and the split */
void cml_window_initial_layout (CmlWindow *self);
void cml_window_on_style_changed (CmlWindow *self);
void cml_window_on_style_choice_changed (CmlWindow *self);
void cml_window_update_text_scale (CmlWindow *self);
void cml_window_set_style_choice (CmlWindow *self, const char *choice);

/* cml-window-status.c: the status line and the timeline */
void cml_window_on_timeline_reversed (CmlWindow *self);
void cml_window_on_timeline_seek (CmlWindow *self, double t);
void cml_window_timeline_show_until (CmlWindow *self, CmlFrame *frame, gint64 now);
void cml_window_update_play_button (CmlWindow *self, CmlRunnerState state);
void cml_window_update_status (CmlWindow *self, CmlFrame *frame, gint64 now);

G_END_DECLS
