/* cml-help.h — the user guide: where it is (the installed Mallard pages read by yelp, the
 * installed HTML, or the HTML of the build tree) and showing it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The guide is a set of Mallard pages (help/C, one file per page), installed under
 * share/help/C/cmlab for yelp and, made into HTML by yelp-build, under share/cmlab/help.
 * A topic is a page's id ("index", "instruments", …).  UI thread.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The URI that shows TOPIC (NULL: the guide's first page): "help:cmlab[/TOPIC]" when
 * yelp is on the PATH and the Mallard pages are installed where it looks, else the
 * "file://…/TOPIC.html" of the first folder of HTML_DIRS (NULL-terminated) that holds the
 * page; NULL when none does.  Launches nothing. */
char *cml_help_resolve_uri (const char *topic, const char *const *html_dirs);

/* The same with cmlab's own folders: the installed HTML, then the build tree's (beside
 * the executable, when run from the build tree). */
char *cml_help_uri (const char *topic);

/* Shows TOPIC of the guide: yelp, else the system's browser on the HTML; when the guide
 * is nowhere, a dialog over PARENT says where it would be and how to get it. */
void cml_help_show (GtkWindow *parent, const char *topic);

G_END_DECLS
