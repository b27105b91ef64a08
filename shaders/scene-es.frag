#version 300 es
precision highp float;
precision highp int;

/* Colour = mix (u_color, u_color2, m) where m is the vertex mark, or a pattern painted in
 * object space so that turning is visible: octants on the ball, sectors on the table;
 * u_accent draws seams and reference lines.  Pattern edges are smoothed over one pixel,
 * which keeps them clean without multisampling.  (The floor's grid is line geometry:
 * a procedural grid over a whole screen costs milliseconds in software GL.)
 * Lighting: Blinn–Phong, one key light and a sky/ground ambient; the flat table is lit
 * per vertex (scene.vert), the floor once on the CPU.
 *
 * MODE (0 mesh, 1 line: trails and grid lines) and PATTERN (0 vertex mark, 1 ball,
 * 2 table, 3 floor, 4 disc, 5 contact shadow) are #defined by the loader. */

#ifndef MODE
#define MODE 0
#endif
#ifndef PATTERN
#define PATTERN 0
#endif

in vec3 v_world;
in vec3 v_normal;
in vec3 v_object;
in float v_mark;
in float v_side;
in float v_light;

uniform vec4 u_color;
uniform vec4 u_color2;
uniform vec4 u_accent;
uniform float u_line_width;   /* lines, pixels */
uniform vec3 u_eye;
uniform vec3 u_light_dir;     /* towards the light, unit */

out vec4 frag_color;

/* 0 → 1 across an edge at x = 0, smoothed over PX (the size of a pixel in x's units) */
float
edge (float x, float px)
{
  return clamp (0.5 + x / px, 0.0, 1.0);
}

/* 1 where |x| < half_width, smoothed over PX */
float
band (float x, float half_width, float px)
{
  return clamp (0.5 + (half_width - abs (x)) / px, 0.0, 1.0);
}

vec3
shade (vec3 base)
{
  vec3 n = normalize (v_normal);
  if (!gl_FrontFacing)
    n = -n;
  vec3 v = normalize (u_eye - v_world);
  vec3 h = normalize (u_light_dir + v);
  float diffuse = max (dot (n, u_light_dir), 0.0);
  float spec = pow (max (dot (n, h), 0.0), 40.0) * 0.28;
  float ambient = mix (0.32, 0.48, 0.5 + 0.5 * n.z);
  return base * (ambient + 0.62 * diffuse) + vec3 (spec);
}

void
main ()
{
#if MODE == 1
  /* a line: v_mark fades it out (a trail's age, a grid line's distance), so whatever
   * lies under it shows through; the edges fade over the one-pixel fringe */
  float half_px = 0.5 * u_line_width + 1.0;
  float fringe = (1.0 - abs (v_side)) * half_px;
  frag_color = vec4 (u_color.rgb, u_color.a * (1.0 - v_mark) * clamp (fringe, 0.0, 1.0));
#elif PATTERN == 3
  /* the floor: one colour, lit on the CPU (its normal is constant); no varyings to
   * interpolate over what is often most of the screen */
  frag_color = u_color;
#elif PATTERN == 5
  /* a soft dark blob under a ball, so that it reads as resting on the floor */
  float r = length (v_object.xy);
  float a = 1.0 - smoothstep (0.15, 1.0, r);
  frag_color = vec4 (u_color.rgb, u_color.a * a * a);
#else
  float m = v_mark;
  float accent = 0.0;
#if PATTERN == 1
  /* alternating octants with ink seams on the three great circles; one derivative
   * gives the pixel size for every edge (derivatives are dear in software GL) */
  vec3 p = normalize (v_object);
  float px = max (length (fwidth (p)), 1e-5);
  vec3 ap = abs (p);
  float nearest = min (ap.x, min (ap.y, ap.z));
  /* the sign of x·y·z flips across each great circle: the distance to the nearest one */
  m *= edge (sign (p.x * p.y * p.z) * nearest, px);
  accent = band (nearest, 0.025, px);
#elif PATTERN == 2
  /* table top (unit radius): twelve sectors by the sign of sin 6φ = Im (x + iy)^6 / r^6,
   * a middle ring, a dark rim, an ink reference radius along body +x and a hub */
  vec2 q = v_object.xy;
  float r = max (length (q), 1e-6);
  float px = max (length (fwidth (q)), 1e-6);
  float x2 = q.x * q.x, y2 = q.y * q.y;
  float s6 = q.x * q.y * (6.0 * x2 * x2 - 20.0 * x2 * y2 + 6.0 * y2 * y2) / (r * r * r * r * r * r);
  /* near a sector boundary sin 6φ ≈ 6 d / r, d the distance to it */
  float sectors = edge (s6 * r / 6.0, px) * step (0.08, r);
  m = v_mark * min (0.45 * sectors + band (r - 0.5, 0.006, px) + band (r - 0.97, 0.03, px), 1.0);
  accent = v_mark * max (band (q.y, 0.012, px) * step (0.0, q.x), band (r, 0.035, px));
#elif PATTERN == 4
  /* a disc: darker rim */
  float r = length (v_object.xy);
  m = band (r - 0.96, 0.04, max (fwidth (r), 1e-6));
#endif
  vec3 base = mix (mix (u_color.rgb, u_color2.rgb, clamp (m, 0.0, 1.0)), u_accent.rgb,
                   clamp (accent, 0.0, 1.0));
#if PATTERN == 2
  frag_color = vec4 (base * v_light, u_color.a);
#else
  frag_color = vec4 (shade (base), u_color.a);
#endif
#endif
}
