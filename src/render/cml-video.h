/* cml-video.h — a video (MP4, WebM, GIF through ffmpeg) or numbered PNG frames, written
 * from RGBA frames off the drawing thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The frames go round a ring of CML_VIDEO_N_BUFFERS buffers: the drawing thread acquires
 * a free one, fills it and submits it; a writer thread hands it to ffmpeg's standard
 * input (one writer, so the video has the frames in the order submitted) or writes it as
 * a PNG file named by its frame number (two writers: PNG compression is the slow part),
 * then puts it back.  ffmpeg runs in its own process group (a Ctrl-C in the terminal is
 * the caller's to handle) with its messages kept for the error report.
 *
 * Every file goes through cml-atomic-file.c: the video is written by ffmpeg under a
 * temporary name in the target's directory and takes its name only in
 * cml_video_finish(); each PNG frame likewise.  A video freed before it finished well
 * removes its temporary file and the PNG frames it had written.  A device or a FIFO is
 * written directly.
 *
 * The caller ignores SIGPIPE (a dead ffmpeg must make a write fail, not kill the
 * process), and may give a flag that a signal handler sets: waits and writes interrupted
 * by a signal then give up (cml_video_new).  One thread drives a CmlVideo.
 */
#pragma once

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

#define CML_VIDEO_N_BUFFERS 6  /* frame buffers shared by the drawing and the writers */

typedef enum
{
  CML_VIDEO_MP4,   /* H.264 */
  CML_VIDEO_WEBM,  /* VP9 */
  CML_VIDEO_GIF,
  CML_VIDEO_PNG,   /* numbered PNG frames */
} CmlVideoFormat;

/* Where the frames go, from the name given (cml_video_target_parse). */
typedef struct
{
  CmlVideoFormat format;
  char          *path;  /* as given */
  char          *dir;   /* its directory */
  /* PNG frames: the name of frame k is PREFIX, k in DIGITS digits (zero-padded), SUFFIX */
  char          *png_prefix, *png_suffix;
  int            png_digits;
} CmlVideoTarget;

/* What is wrong with a target's name. */
typedef enum
{
  CML_VIDEO_TARGET_OK,
  CML_VIDEO_TARGET_NO_NAME,         /* a directory ("out/") */
  CML_VIDEO_TARGET_NO_EXTENSION,
  CML_VIDEO_TARGET_UNKNOWN_FORMAT,  /* an extension other than .mp4, .webm, .gif, .png */
  CML_VIDEO_TARGET_BAD_PATTERN,     /* .png without exactly one %d or %0Nd ("%%": a %) */
} CmlVideoTargetProblem;

/* Reads the format from PATH's extension (any case) and, for PNG frames, the frame
 * number's place in the file name.  TARGET gets PATH and its directory whatever the
 * answer; free with cml_video_target_clear. */
CmlVideoTargetProblem cml_video_target_parse (const char *path, CmlVideoTarget *target);
void                  cml_video_target_clear (CmlVideoTarget *target);
/* The file name of PNG frame K. */
char                 *cml_video_target_frame_name (const CmlVideoTarget *target, guint k);
/* "MP4 (H.264)", "WebM (VP9)", "GIF", "PNG frames". */
const char           *cml_video_format_name (CmlVideoFormat format);

#define CML_VIDEO_ERROR (cml_video_error_quark ())
GQuark cml_video_error_quark (void);

typedef enum
{
  CML_VIDEO_ERROR_CANCELLED,  /* the cancel flag was set while ffmpeg finished the file */
  CML_VIDEO_ERROR_FAILED,     /* the file could not be written: the message says why */
} CmlVideoError;

/* A frame buffer: WIDTH × HEIGHT × 4 bytes of opaque RGBA, top row first, and the number
 * of the frame it holds (the PNG file's number). */
typedef struct
{
  guint8 *rgba;
  guint   index;
} CmlVideoFrame;

typedef struct _CmlVideo CmlVideo;

/* Makes sure the target takes the file (not a directory, not a read-only file) and, for
 * a video, makes its temporary file; for PNG frames it tries the first frame's name.
 * Temporaries a killed run left in the directory go now.  Frames are WIDTH × HEIGHT
 * (even for MP4 and WebM) at FPS.  CANCEL (may be NULL): a flag a signal handler sets. */
CmlVideo *cml_video_new (const CmlVideoTarget *target, int width, int height, double fps,
                         const volatile sig_atomic_t *cancel, GError **error);
/* Starts ffmpeg (FFMPEG: its path; unused for PNG frames) and the writer threads. */
gboolean  cml_video_start (CmlVideo *video, const char *ffmpeg, GError **error);
/* A free frame buffer, waiting for the writers; NULL once cancelled or failed. */
CmlVideoFrame *cml_video_acquire_frame (CmlVideo *video);
/* Hands a filled buffer to the writers; frames are written in the order submitted. */
void      cml_video_submit_frame (CmlVideo *video, CmlVideoFrame *frame);
/* Puts an acquired buffer back unwritten. */
void      cml_video_release_frame (CmlVideo *video, CmlVideoFrame *frame);
/* TRUE once a writer gave up (ffmpeg stopped taking frames, a PNG file failed). */
gboolean  cml_video_has_failed (CmlVideo *video);
/* Stops the writers once they have written what was submitted.  Not COMPLETE: ffmpeg is
 * killed first (a writer blocked on its full pipe is freed), the video abandoned. */
void      cml_video_stop (CmlVideo *video, gboolean complete);
/* After cml_video_stop: ffmpeg finishes the file and it takes its name.  FALSE with
 * CML_VIDEO_ERROR_FAILED if the video was abandoned, a writer failed or ffmpeg could not
 * write the file ("writing PATH failed: …", with ffmpeg's own words), or with
 * CML_VIDEO_ERROR_CANCELLED if cancelled meanwhile. */
gboolean  cml_video_finish (CmlVideo *video, GError **error);
/* Stops whatever still runs; unless finished well, removes the temporary file and the
 * PNG frames written. */
void      cml_video_free (CmlVideo *video);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlVideo, cml_video_free)

G_END_DECLS
