#version 300 es

precision highp float;
precision highp int;

/* GLES 3.0 variant of plot.vert (keep the two alike).
 *
 * The plot's shaders, in two variants (MODE is #defined by the loader; one program each,
 * which software GL runs faster than one program with branches).  Coordinates are
 * pixels of the framebuffer with y growing downwards, as in cml-plot.h's layout.
 *
 *   MODE 0  line segments.  One instance per segment a_p0 → a_p1 with half-width
 *           a_extra.x and colour a_color; the quad around it (widened by ¾ pixel for
 *           the anti-aliased edge) comes from gl_VertexID.  The fragment shader measures
 *           the distance to the segment, so each segment is a capsule: smooth edges,
 *           round ends, seamless joins in a polyline.  (Core-profile GL draws no lines
 *           wider than one pixel.)  With a_extra.y > 0 the segment is a bar instead: a
 *           rectangle exactly a_extra.y to either side (no anti-aliasing there, so bars
 *           side by side tile without overlap) with anti-aliased flat ends a_extra.x
 *           beyond its end points — the bars of a densely oscillating series.
 *   MODE 1  text.  One instance per label: a quad at a_p0 of size a_p1 showing the
 *           rectangle a_extra = (u0, v0, u1, v1) of the label atlas, in a_color. */
#ifndef MODE
#define MODE 0
#endif

layout (location = 0) in vec2 a_p0;
layout (location = 1) in vec2 a_p1;
layout (location = 2) in vec4 a_color;  /* not premultiplied */
layout (location = 3) in vec4 a_extra;

uniform vec2 u_viewport;                /* framebuffer size, px */

out vec4 v_color;
out vec2 v_local;                       /* MODE 0: (along, across) the segment, px; 1: uv */
flat out vec3 v_shape;                  /* MODE 0: (length, half-width, bar?), px */

void
main ()
{
  vec2 corner = vec2 (float (gl_VertexID & 1), float (gl_VertexID >> 1));
  vec2 pos;
#if MODE == 0
  vec2 d = a_p1 - a_p0;
  float len = length (d);
  vec2 dir = len > 1e-4 ? d / len : vec2 (1.0, 0.0);
  vec2 nrm = vec2 (-dir.y, dir.x);
  float hw = a_extra.x;
  float ext = hw + 0.75;
  float side = a_extra.y > 0.0 ? a_extra.y : ext;
  float along = mix (-ext, len + ext, corner.x);
  float across = mix (-side, side, corner.y);
  pos = a_p0 + dir * along + nrm * across;
  v_local = vec2 (along, across);
  v_shape = vec3 (len, hw, a_extra.y > 0.0 ? 1.0 : 0.0);
#else
  pos = a_p0 + corner * a_p1;
  v_local = mix (a_extra.xy, a_extra.zw, corner);
  v_shape = vec3 (0.0);
#endif
  v_color = a_color;
  gl_Position = vec4 (pos.x / u_viewport.x * 2.0 - 1.0, 1.0 - pos.y / u_viewport.y * 2.0, 0.0, 1.0);
}
