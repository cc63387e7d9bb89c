/* Accuracy metrics of a measured instruction mix against a reference (method.md §8):
 * the HBBP paper's per-key error and average weighted error, and seed 002's weighted NRMSE,
 * sample coverage and order deviation at the instruction-address level.
 * Pure arithmetic over arrays: depends only on libc and libm.
 */
#ifndef HBBP_METRICS_H
#define HBBP_METRICS_H

#include <stddef.h>

/* Error(M) = |V_ref(M) - V_meas(M)| / V_ref(M); a key the reference lacks (ref 0) has no
 * relative error: returns -1 (callers print "n/a"). */
double metrics__error(double ref, double meas);

/* The paper's average weighted error over n keys:
 *   Σ_M Error(M)·V_ref(M) / Σ_M V_ref(M) = Σ_M |V_ref(M) − V_meas(M)| / Σ_M V_ref(M).
 * Keys present on one side only are included: one missing from the measurement contributes
 * its whole reference count (100% error for its weight), one missing from the reference
 * (ref 0) adds its measured count to the numerator only. Returns 0 when Σ ref is 0 and all
 * meas are 0, else +inf when Σ ref is 0. */
double metrics__weighted_error(const double *ref, const double *meas, size_t n);

/* Seed 002 at the IP level. Inputs:
 *   ref_all[0..n_ref): the reference count of every executed instruction address
 *                      (NI = Σ ref_all: all instructions executed);
 *   c[0..m): the measured count at each measured address (NS = Σ c);
 *   r[0..m): the reference count at that same address (0 if the reference never ran it).
 * Outputs (each defined with the seed's formula):
 *   nrmse = sqrt( Σ_i (c_i/NS) · (c_i/NS − r_i/NI)² )
 *           / ( max_i({c_i/NS} ∪ {r_i/NI}) − min_i({c_i/NS} ∪ {r_i/NI}) )
 *           (the seed's NRMSE_SR: differences of fractions, weighted by the measured share;
 *            0 when the range is 0);
 *   coverage = Σ_i r_i / NI (SC: the share of all executed instructions that sit at
 *              measured addresses);
 *   order_dev = sqrt( Σ_i (c_i/NS) · (SOLevel(i) − ROLevel(i))² ) / m
 *           where SOLevel(i) is the order level of address i in the measured list sorted by
 *           count (equal counts share one level: level = 1 + number of distinct larger
 *           counts) and ROLevel(i) the order level of the block holding address i in the
 *           reference list of blocks sorted by execution count. Every instruction of a block
 *           has the block's count, so the distinct block counts are the distinct counts of
 *           ref_all, and ROLevel(i) = 1 + number of distinct values in ref_all larger than
 *           r_i. Counts within a relative 1e-9 of each other are one value (estimates are
 *           sums of fractions). The seed prints m below the square root's bar-less fraction; we read it, as
 *           for its NRMSE, as dividing the root. order_rms is the root alone (the weighted
 *           RMS level deviation the seed's prose describes: "deviated by 2").
 * Returns 0, or -1 when m or NS or NI is 0 (outputs zeroed). Allocates (qsort copies):
 * returns -2 when out of memory. */
struct metrics_ip {
	double nrmse, coverage, order_dev, order_rms;
	size_t m;
};
int metrics__ip(const double *ref_all, size_t n_ref, const double *c, const double *r, size_t m,
		struct metrics_ip *out);

#endif
