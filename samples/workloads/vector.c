/* A vectorised Kalman-filter track fit (like the paper's Fitter, a SIMD track fit of the kind
 * used in high-energy physics): tracks cross NST detector stations in a magnetic field; each
 * station measures one strip coordinate u = cos(a) x + sin(a) y. The fit runs over groups of
 * tracks, one track per SIMD lane (GCC vector extensions: 8 lanes with AVX, else 4 with SSE),
 * state (x, y, tx, ty, q/p) and the 15 elements of its symmetric 5x5 covariance, with explicit
 * formulas as such fitters write them: field from a per-station polynomial, first-order
 * extrapolation in the field with its Jacobian, multiple-scattering noise, and the filter
 * update. argv[1] tracks (default 2000), argv[2] fit passes (default 4). Built with -O3.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

#ifdef __AVX__
#define LANES 8
#else
#define LANES 4
#endif
typedef float fvec __attribute__((vector_size(LANES * 4)));

#define NST 8

struct station {
	float z, cos_a, sin_a, sigma2, thick;
	float bx[6], by[6];	/* field: c0 + c1 x + c2 y + c3 x^2 + c4 x y + c5 y^2 */
};

struct track_group {
	fvec x, y, tx, ty, qp, z;
	fvec C[15];		/* lower triangle, row by row: C00 C10 C11 C20 ... C44 */
	fvec chi2;
};

static struct station st[NST];

static fvec splat(float v)
{
	fvec r;
	for (int i = 0; i < LANES; i++)
		r[i] = v;
	return r;
}

static inline fvec vsqrt(fvec v)
{
#ifdef __AVX__
	return (fvec)_mm256_sqrt_ps((__m256)v);
#else
	return (fvec)_mm_sqrt_ps((__m128)v);
#endif
}

static inline fvec field_poly(const float *c, fvec x, fvec y)
{
	return splat(c[0]) + splat(c[1]) * x + splat(c[2]) * y + splat(c[3]) * x * x +
	       splat(c[4]) * x * y + splat(c[5]) * y * y;
}

/* Extrapolates to station s: first-order transport in the field (Bx, By at the target). */
static inline void extrapolate(struct track_group *t, const struct station *s)
{
	const fvec c_light = splat(0.000299792458f);
	fvec dz = splat(s->z) - t->z;
	fvec xe = t->x + t->tx * dz, ye = t->y + t->ty * dz;
	fvec bx = field_poly(s->bx, xe, ye), by = field_poly(s->by, xe, ye);
	fvec tx = t->tx, ty = t->ty, txtx = tx * tx, tyty = ty * ty, txty = tx * ty;
	fvec l = vsqrt(splat(1.0f) + txtx + tyty);
	fvec h = c_light * l * dz;
	fvec ax = txty * bx - (splat(1.0f) + txtx) * by;
	fvec ay = (splat(1.0f) + tyty) * bx - txty * by;
	fvec dtx_dqp = h * ax, dty_dqp = h * ay;
	fvec qp = t->qp;
	fvec half_dz = splat(0.5f) * dz;

	t->x = xe + half_dz * dtx_dqp * qp;
	t->y = ye + half_dz * dty_dqp * qp;
	t->tx = tx + dtx_dqp * qp;
	t->ty = ty + dty_dqp * qp;
	t->z = splat(s->z);

	/* Jacobian: x' = x + dz tx + j04 qp, y' = y + dz ty + j14 qp, tx' = tx + j24 qp,
	 * ty' = ty + j34 qp, qp' = qp. C' = J C J^T. */
	fvec j04 = half_dz * dtx_dqp, j14 = half_dz * dty_dqp, j24 = dtx_dqp, j34 = dty_dqp;
	fvec *C = t->C;
	fvec c00 = C[0], c10 = C[1], c11 = C[2], c20 = C[3], c21 = C[4], c22 = C[5];
	fvec c30 = C[6], c31 = C[7], c32 = C[8], c33 = C[9];
	fvec c40 = C[10], c41 = C[11], c42 = C[12], c43 = C[13], c44 = C[14];
	/* A = J C (rows 0..3 change) */
	fvec a00 = c00 + dz * c20 + j04 * c40, a01 = c10 + dz * c21 + j04 * c41;
	fvec a02 = c20 + dz * c22 + j04 * c42, a03 = c30 + dz * c32 + j04 * c43;
	fvec a04 = c40 + dz * c42 + j04 * c44;
	fvec a11 = c11 + dz * c31 + j14 * c41, a12 = c21 + dz * c32 + j14 * c42;
	fvec a13 = c31 + dz * c33 + j14 * c43, a14 = c41 + dz * c43 + j14 * c44;
	fvec a22 = c22 + j24 * c42, a23 = c32 + j24 * c43, a24 = c42 + j24 * c44;
	fvec a33 = c33 + j34 * c43, a34 = c43 + j34 * c44;
	fvec a10 = c10 + dz * c30 + j14 * c40;
	fvec a20 = c20 + j24 * c40, a21 = c21 + j24 * c41;
	fvec a30 = c30 + j34 * c40, a31 = c31 + j34 * c41, a32 = c32 + j34 * c42;
	/* C' = A J^T */
	C[0] = a00 + a02 * dz + a04 * j04;
	C[1] = a10 + a12 * dz + a14 * j04;
	C[2] = a11 + a13 * dz + a14 * j14;
	C[3] = a20 + a22 * dz + a24 * j04;
	C[4] = a21 + a23 * dz + a24 * j14;
	C[5] = a22 + a24 * j24;
	C[6] = a30 + a32 * dz + a34 * j04;
	C[7] = a31 + a33 * dz + a34 * j14;
	C[8] = a32 + a34 * j24;
	C[9] = a33 + a34 * j34;
	C[10] = a04;
	C[11] = a14;
	C[12] = a24;
	C[13] = a34;
	(void)a01; (void)a03;
	C[14] = c44;
}

/* Multiple scattering in the station's material (Highland, log term folded in). */
static inline void add_material(struct track_group *t, const struct station *s)
{
	fvec tx = t->tx, ty = t->ty, txtx = tx * tx, tyty = ty * ty;
	fvec h = splat(1.0f) + txtx + tyty;
	fvec l = splat(s->thick) * vsqrt(h);
	fvec s0 = splat(0.0136f * 0.0136f * 1.1f) * t->qp * t->qp * h * l;
	t->C[5] += s0 * (splat(1.0f) + txtx);
	t->C[8] += s0 * tx * ty;
	t->C[9] += s0 * (splat(1.0f) + tyty);
}

/* Filter with the strip measurement u of station s. */
static inline void filter(struct track_group *t, const struct station *s, fvec u)
{
	fvec c = splat(s->cos_a), sn = splat(s->sin_a);
	fvec *C = t->C;
	fvec f0 = c * C[0] + sn * C[1];
	fvec f1 = c * C[1] + sn * C[2];
	fvec f2 = c * C[3] + sn * C[4];
	fvec f3 = c * C[6] + sn * C[7];
	fvec f4 = c * C[10] + sn * C[11];
	fvec hch = c * f0 + sn * f1;
	fvec w = splat(1.0f) / (splat(s->sigma2) + hch);
	fvec zeta = c * t->x + sn * t->y - u;
	t->chi2 += zeta * zeta * w;
	fvec k0 = f0 * w, k1 = f1 * w, k2 = f2 * w, k3 = f3 * w, k4 = f4 * w;
	t->x -= k0 * zeta;
	t->y -= k1 * zeta;
	t->tx -= k2 * zeta;
	t->ty -= k3 * zeta;
	t->qp -= k4 * zeta;
	C[0] -= k0 * f0;
	C[1] -= k1 * f0;
	C[2] -= k1 * f1;
	C[3] -= k2 * f0;
	C[4] -= k2 * f1;
	C[5] -= k2 * f2;
	C[6] -= k3 * f0;
	C[7] -= k3 * f1;
	C[8] -= k3 * f2;
	C[9] -= k3 * f3;
	C[10] -= k4 * f0;
	C[11] -= k4 * f1;
	C[12] -= k4 * f2;
	C[13] -= k4 * f3;
	C[14] -= k4 * f4;
}

static void fit_group(struct track_group *t, const fvec *u /* [NST] */)
{
	memset(t, 0, sizeof(*t));
	t->z = splat(st[0].z);
	t->x = u[0] * splat(st[0].cos_a);
	t->y = u[0] * splat(st[0].sin_a);
	t->C[0] = t->C[2] = splat(1.0f);
	t->C[5] = t->C[9] = splat(0.01f);
	t->C[14] = splat(1.0f);
	for (int i = 0; i < NST; i++) {
		if (i) {
			extrapolate(t, &st[i]);
			add_material(t, &st[i]);
		}
		filter(t, &st[i], u[i]);
	}
}

static unsigned rng = 12345;
static float frand(void)	/* uniform in [-1, 1) */
{
	rng = rng * 1103515245u + 12345u;
	return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	int passes = argc > 2 ? atoi(argv[2]) : 4;
	int ng = (n + LANES - 1) / LANES;
	if (n <= 0 || passes <= 0)
		return 1;
	for (int i = 0; i < NST; i++) {
		float a = (i & 1 ? 1 : -1) * (0.1f + 0.05f * (float)(i % 3));
		st[i].z = 30.0f + 10.0f * (float)i;
		st[i].cos_a = cosf(a);
		st[i].sin_a = sinf(a);
		st[i].sigma2 = 0.0025f;
		st[i].thick = 0.003f;
		for (int k = 0; k < 6; k++) {
			st[i].bx[k] = 0.01f * frand();
			st[i].by[k] = (k ? 0.01f : 1.0f) * (1.0f - 0.02f * (float)i + 0.01f * frand());
		}
	}
	fvec *hits = malloc((size_t)ng * NST * sizeof(*hits));
	if (!hits)
		return 1;
	/* simulated straight-ish tracks with measurement noise */
	for (int g = 0; g < ng; g++)
		for (int l = 0; l < LANES; l++) {
			float x = 0.5f * frand(), y = 0.5f * frand(), tx = 0.3f * frand();
			float ty = 0.3f * frand(), qp = 0.5f * frand();
			for (int i = 0; i < NST; i++) {
				float dz = st[i].z - st[0].z;
				float xi = x + tx * dz + 0.00015f * qp * dz * dz, yi = y + ty * dz;
				hits[g * NST + i][l] = st[i].cos_a * xi + st[i].sin_a * yi +
						       0.05f * frand();
			}
		}
	double chi2 = 0, qp = 0;
	struct track_group t;
	for (int p = 0; p < passes; p++)
		for (int g = 0; g < ng; g++) {
			fit_group(&t, &hits[g * NST]);
			for (int l = 0; l < LANES; l++) {
				chi2 += t.chi2[l];
				qp += t.qp[l];
			}
		}
	printf("%d tracks, %d lanes: chi2/track %.4f <q/p> %.6f\n", ng * LANES, LANES,
	       chi2 / ((double)ng * LANES * passes), qp / ((double)ng * LANES * passes));
	free(hits);
	return 0;
}
