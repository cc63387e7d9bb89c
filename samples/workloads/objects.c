/* Object-oriented particle transport (like the paper's Test40, a Geant4 simulation): tracks
 * step through a detector of boxes, tubes and spheres; geometry (inside, distance to out) and
 * physics processes (proposed step, interaction) are short methods called through function
 * tables, volumes are found by walking a linked list, secondaries go on a stack. argv[1]
 * primary particles (default 200). Many short blocks, indirect calls and returns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct vec3 { double x, y, z; };
struct track { struct vec3 pos, dir; double energy; int alive, steps; };

struct solid;
struct solid_ops {
	int (*inside)(const struct solid *s, const struct vec3 *p);
	double (*dist_out)(const struct solid *s, const struct vec3 *p, const struct vec3 *d);
};
struct solid { const struct solid_ops *ops; struct vec3 c; double a, b; };

struct material { double density, radlen; };
struct volume {
	struct solid solid;
	const struct material *mat;
	struct volume *next;
	long nsteps;
	double edep;
};

struct process;
struct process_ops {
	double (*step)(const struct process *pr, const struct track *t, const struct material *m);
	void (*interact)(const struct process *pr, struct track *t, struct volume *v);
};
struct process { const struct process_ops *ops; double xs; };

static unsigned long rng_state = 88172645463325252UL;
static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static double sq(double v) { return v * v; }
static struct vec3 sub(struct vec3 a, struct vec3 b) { return (struct vec3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static double dot(struct vec3 a, struct vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static int box_inside(const struct solid *s, const struct vec3 *p)
{
	struct vec3 r = sub(*p, s->c);
	return fabs(r.x) <= s->a && fabs(r.y) <= s->a && fabs(r.z) <= s->b;
}
static double box_dist_out(const struct solid *s, const struct vec3 *p, const struct vec3 *d)
{
	struct vec3 r = sub(*p, s->c);
	double tx = d->x > 0 ? (s->a - r.x) / d->x : d->x < 0 ? (-s->a - r.x) / d->x : 1e30;
	double ty = d->y > 0 ? (s->a - r.y) / d->y : d->y < 0 ? (-s->a - r.y) / d->y : 1e30;
	double tz = d->z > 0 ? (s->b - r.z) / d->z : d->z < 0 ? (-s->b - r.z) / d->z : 1e30;
	return fmin(tx, fmin(ty, tz));
}
static int tube_inside(const struct solid *s, const struct vec3 *p)
{
	struct vec3 r = sub(*p, s->c);
	return sq(r.x) + sq(r.y) <= sq(s->a) && fabs(r.z) <= s->b;
}
static double tube_dist_out(const struct solid *s, const struct vec3 *p, const struct vec3 *d)
{
	struct vec3 r = sub(*p, s->c);
	double a = sq(d->x) + sq(d->y), b = r.x * d->x + r.y * d->y;
	double c = sq(r.x) + sq(r.y) - sq(s->a);
	double tr = a > 0 ? (-b + sqrt(fmax(b * b - a * c, 0))) / a : 1e30;
	double tz = d->z > 0 ? (s->b - r.z) / d->z : d->z < 0 ? (-s->b - r.z) / d->z : 1e30;
	return fmin(tr, tz);
}
static int sphere_inside(const struct solid *s, const struct vec3 *p)
{
	struct vec3 r = sub(*p, s->c);
	return dot(r, r) <= sq(s->a);
}
static double sphere_dist_out(const struct solid *s, const struct vec3 *p, const struct vec3 *d)
{
	struct vec3 r = sub(*p, s->c);
	double b = dot(r, *d), c = dot(r, r) - sq(s->a);
	return -b + sqrt(fmax(b * b - c, 0));
}
static const struct solid_ops box_ops = { box_inside, box_dist_out };
static const struct solid_ops tube_ops = { tube_inside, tube_dist_out };
static const struct solid_ops sphere_ops = { sphere_inside, sphere_dist_out };

static double exp_step(const struct process *pr, const struct track *t, const struct material *m)
{
	(void)t;
	return -log(1.0 - uniform()) / (pr->xs * m->density);
}
static double msc_step(const struct process *pr, const struct track *t, const struct material *m)
{
	return pr->xs * m->radlen * t->energy;
}
static void ionise(const struct process *pr, struct track *t, struct volume *v)
{
	double de = fmin(t->energy, 0.05 * pr->xs * (0.5 + uniform()));
	t->energy -= de;
	v->edep += de;
}
static void scatter(const struct process *pr, struct track *t, struct volume *v)
{
	(void)v;
	double th = pr->xs * (uniform() - 0.5), c = cos(th), s = sin(th);
	double x = c * t->dir.x - s * t->dir.z, z = s * t->dir.x + c * t->dir.z;
	double n = 1.0 / sqrt(x * x + sq(t->dir.y) + z * z);
	t->dir = (struct vec3){ x * n, t->dir.y * n, z * n };
}
static void brems(const struct process *pr, struct track *t, struct volume *v)
{
	(void)pr;
	double f = 0.2 + 0.6 * uniform();
	v->edep += 0.01 * t->energy;
	t->energy *= f;
}
static const struct process_ops ion_ops = { exp_step, ionise };
static const struct process_ops msc_ops = { msc_step, scatter };
static const struct process_ops brem_ops = { exp_step, brems };

#define NVOL 60
#define NPROC 3

static struct volume *locate(struct volume *list, const struct vec3 *p)
{
	for (struct volume *v = list; v; v = v->next)
		if (v->solid.ops->inside(&v->solid, p))
			return v;
	return NULL;
}

int main(int argc, char **argv)
{
	int events = argc > 1 ? atoi(argv[1]) : 200;
	static const struct material mats[3] = { { 1.0, 36.0 }, { 7.9, 1.8 }, { 2.3, 19.0 } };
	static struct volume vols[NVOL];
	struct process procs[NPROC] = { { &ion_ops, 0.8 }, { &msc_ops, 0.3 }, { &brem_ops, 0.05 } };
	/* a calorimeter-like stack along z; the list order is shuffled (pointer chasing) */
	int order[NVOL];
	for (int i = 0; i < NVOL; i++) {
		static const struct solid_ops *const kinds[3] = { &box_ops, &tube_ops, &sphere_ops };
		vols[i].solid = (struct solid){ kinds[i % 3], { 0, 0, 2.0 * i + 1 }, 4.0, 1.0 };
		vols[i].mat = &mats[i % 3];
		order[i] = i;
	}
	for (int i = NVOL - 1; i > 0; i--) {
		int j = (int)(uniform() * (i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i + 1 < NVOL; i++)
		vols[order[i]].next = &vols[order[i + 1]];
	struct volume *world = &vols[order[0]];

	long steps = 0, secondaries = 0;
	struct track stack[64];
	for (int e = 0; e < events; e++) {
		int sp = 0;
		stack[sp++] = (struct track){ { 0.1 * uniform(), 0.1 * uniform(), 0.5 },
					      { 0, 0, 1 }, 10.0, 1, 0 };
		while (sp) {
			struct track t = stack[--sp];
			struct volume *v;
			while (t.alive && (v = locate(world, &t.pos))) {
				double s = v->solid.ops->dist_out(&v->solid, &t.pos, &t.dir) + 1e-6;
				const struct process *winner = NULL;
				for (int k = 0; k < NPROC; k++) {
					double ps = procs[k].ops->step(&procs[k], &t, v->mat);
					if (ps < s) {
						s = ps;
						winner = &procs[k];
					}
				}
				t.pos.x += s * t.dir.x;
				t.pos.y += s * t.dir.y;
				t.pos.z += s * t.dir.z;
				v->nsteps++;
				steps++;
				if (winner) {
					double before = t.energy;
					winner->ops->interact(winner, &t, v);
					if (winner->ops == &brem_ops && sp < 63 && before - t.energy > 0.5) {
						stack[sp++] = (struct track){ t.pos, t.dir,
									      0.5 * (before - t.energy), 1, 0 };
						secondaries++;
					}
				}
				if (t.energy < 0.01 || ++t.steps > 500)
					t.alive = 0;
			}
		}
	}
	double edep = 0;
	for (int i = 0; i < NVOL; i++)
		edep += vols[i].edep;
	printf("%d events, %ld steps, %ld secondaries, edep %.3f\n", events, steps, secondaries, edep);
	return 0;
}
