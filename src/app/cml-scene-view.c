/* cml-scene-view.c — stub (being implemented). */
#include "cml-scene-view.h"

struct _CmlSceneView
{
  GtkWidget parent_instance;
  gboolean  table_frame;
};

G_DEFINE_FINAL_TYPE (CmlSceneView, cml_scene_view, GTK_TYPE_WIDGET)

static void
cml_scene_view_class_init (CmlSceneViewClass *klass)
{
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static void
cml_scene_view_init (CmlSceneView *self)
{
}

GtkWidget *
cml_scene_view_new (void)
{
  return g_object_new (CML_TYPE_SCENE_VIEW, NULL);
}

void cml_scene_view_set_system (CmlSceneView *self, CmlSystem *sys) {}
void cml_scene_view_set_frame (CmlSceneView *self, CmlFrame *frame) {}
void cml_scene_view_push_samples (CmlSceneView *self, const double *t, const double *rows,
                                  guint n, guint n_cols, guint n_obs) {}
void cml_scene_view_clear_trails (CmlSceneView *self) {}
void cml_scene_view_reset_camera (CmlSceneView *self) {}
void cml_scene_view_set_table_frame (CmlSceneView *self, gboolean table_frame) { self->table_frame = table_frame; }
gboolean cml_scene_view_get_table_frame (CmlSceneView *self) { return self->table_frame; }
void cml_scene_view_set_presentation (CmlSceneView *self, gboolean presentation) {}
void cml_scene_view_set_dark (CmlSceneView *self, gboolean dark) {}
gboolean cml_scene_view_probe_pixels (CmlSceneView *self, double *fraction) { return FALSE; }
