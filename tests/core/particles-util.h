/* particles-util.h — for the tests of what the window's thread pays for a large system
 * (test-runner, test-plot-view): a model of N free particles, built as text, and the page
 * faults the calling thread has taken.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <sys/resource.h>

#include "cml-model.h"
#include "cml-system.h"

/* A model of N free particles on a line (2N state variables, all observed). */
static inline CmlSystem *
particles_system (guint n)
{
  g_autoptr (GString) text = g_string_new ("[model]\nname = particles\ntitle = Free particles\ntime-unit = s\n\n[algebroid]\nbase = ");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = NULL;
  CmlSystem *sys;

  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "%sx%u", i > 1 ? ", " : "", i);
  g_string_append (text, "\nfibre = ");
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "%sv%u", i > 1 ? ", " : "", i);
  g_string_append (text, "\nsections = ");
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "%se%u", i > 1 ? ", " : "", i);
  g_string_append (text, "\n\n[anchor]\n");
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "e%u = x%u: 1\n", i, i);
  g_string_append (text, "\n[dynamics]\nlagrangian = ");
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "%sv%u^2/2", i > 1 ? " + " : "", i);
  g_string_append (text, "\n\n[initial]\n");
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "x%u = 0\nv%u = %u\n", i, i, i);
  model = cml_model_new_from_data (text->str, "particles.cml", &error);
  g_assert_no_error (error);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  return sys;
}

/* Whether a sanitizer's allocator stands in for malloc (): it writes its own records of a
 * block (its shadow) on the thread that allocates, so the page faults counted there are its
 * own, not the code's under test. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PARTICLES_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PARTICLES_UNDER_SANITIZER 1
#endif
#endif
#ifndef PARTICLES_UNDER_SANITIZER
#define PARTICLES_UNDER_SANITIZER 0
#endif

/* Minor page faults taken by the calling thread so far. */
static inline long
thread_page_faults (void)
{
  struct rusage ru;

  g_assert_cmpint (getrusage (RUSAGE_THREAD, &ru), ==, 0);
  return ru.ru_minflt;
}
