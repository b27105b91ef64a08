/* cml-conserved.h — the conserved-quantity inspector: candidates derived from a model,
 * each decided along the derived vector field (doc/theory.md §15).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-system.h"

G_BEGIN_DECLS

typedef enum
{
  CML_CONSERVED_EXACTLY,     /* dF/dt simplifies to 0 */
  CML_CONSERVED_TO_ROUNDING, /* dF/dt at rounding level at every sampled admissible state
                              * (evidence, not a proof: "no change found at the sampled states") */
  CML_CONSERVED_NOT,         /* dF/dt ≠ 0 somewhere */
  CML_CONSERVED_UNDECIDED,   /* neither could be shown (no admissible states, …) */
} CmlConservedVerdict;

typedef enum
{
  CML_CANDIDATE_ENERGY,        /* E_L = y^A ∂L/∂y^A − L (vakonomic: H = p_A y^A − L on W1) */
  CML_CANDIDATE_MOVING_ENERGY, /* E_Z = E_L − p_A Z^A, Z the affine part of the constraints */
  CML_CANDIDATE_MOMENTUM,      /* J_A = ∂L/∂y^A (vakonomic: p_A) */
  CML_CANDIDATE_CASIMIR,       /* of the Lie–Poisson bracket (base a point) */
  CML_CANDIDATE_MONITOR,       /* a monitor of the model */
} CmlCandidateKind;

/* The number of admissible states the numerical test uses (the initial state, a run from
 * it, states near it, random ones). */
#define CML_CONSERVED_N_STATES 200

typedef struct
{
  CmlCandidateKind    kind;
  char               *name;          /* "E_L", "E_Z", "p5", "C1", or the monitor's name */
  char               *what;          /* what it is, in words */
  CmlExpr            *expr;          /* F(t, state), in the model's context */
  char               *formula;       /* F typeset for reading */
  CmlConservedVerdict verdict;
  char               *reason;        /* why, in words */
  gboolean            declared;      /* a monitor the model declares conserved */
  gboolean            contradiction; /* declared conserved, found not conserved */
  double              max_rel;       /* largest |dF/dt| relative to the size of its terms */
  guint               n_states;      /* admissible states it was evaluated at */
} CmlConservedCandidate;

typedef struct
{
  GPtrArray *candidates; /* CmlConservedCandidate* */
  GPtrArray *warnings;   /* char*: contradictions with what the model declares */
} CmlConservedReport;

/* Derives the candidates of SYS and decides each (deterministic: a fixed random seed).
 * Builds expressions in the model's context: not concurrently with another builder. */
CmlConservedReport *cml_conserved_inspect (CmlSystem *sys);
/* The same with the parameters' values PARAMS (in the model's order; NULL: its defaults)
 * for the numerical test. */
CmlConservedReport *cml_conserved_inspect_at (CmlSystem *sys, const double *params);
void                cml_conserved_report_free (CmlConservedReport *report);

/* The first candidate of KIND named NAME, or NULL. */
const CmlConservedCandidate *cml_conserved_report_find (const CmlConservedReport *report,
                                                        CmlCandidateKind kind, const char *name);
/* TRUE for EXACTLY and TO_ROUNDING. */
gboolean    cml_conserved_verdict_is_conserved (CmlConservedVerdict verdict);
/* "conserved (exactly)", "no change found at the sampled states (not a proof)", "not conserved", … */
const char *cml_conserved_verdict_to_string (CmlConservedVerdict verdict);
/* What a verdict means, one sentence for people (tooltips). */
const char *cml_conserved_verdict_explain (CmlConservedVerdict verdict);
/* The section "Conserved quantities …" of `cmlab-cli info`: every candidate with its
 * formula, its verdict and why, then the contradictions as warnings. */
char       *cml_conserved_report_to_text (const CmlConservedReport *report);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlConservedReport, cml_conserved_report_free)

G_END_DECLS
