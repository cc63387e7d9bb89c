/* A vectorised track-fit-like kernel (like the paper's Fitter): updates N (argv[1], default
 * 2000) float states with multiply-adds and a square root, 20 iterations. Built with -O3
 * (and -mavx2 -mfma where the emulator runs AVX2) so the loops become SSE/AVX code.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	float *x = malloc((size_t)n * sizeof(*x)), *v = malloc((size_t)n * sizeof(*v));
	float *w = malloc((size_t)n * sizeof(*w));
	if (!x || !v || !w)
		return 1;
	for (int i = 0; i < n; i++) {
		x[i] = (float)(i % 100) * 0.5f;
		v[i] = (float)(i % 7) * 0.25f + 1.0f;
		w[i] = 1.0f;
	}
	for (int it = 0; it < 20; it++) {
		for (int i = 0; i < n; i++) {
			float k = w[i] / (w[i] + v[i]);
			x[i] = x[i] + k * (v[i] - x[i]);
			w[i] = (1.0f - k) * w[i] + 0.01f;
		}
		for (int i = 0; i < n; i++)
			v[i] = sqrtf(v[i] * v[i] + 0.5f);
	}
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i] + w[i];
	printf("%.3f\n", s);
	free(x);
	free(v);
	free(w);
	return 0;
}
