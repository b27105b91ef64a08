/* main.c — cmlab, the desktop application.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cmlab"

#include "cml-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (CmlApplication) app = cml_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
