/* The textbook laws of queueing theory that tssim explain prints beside a
 * simulated mean wait (explain_laws.c; explain_theory.c decides which one
 * applies to a queue and why another does not). Internal to the viz layer.
 * Times in ns, rates per ns; the printed values in ms. */
#ifndef TS_VIZ_EXPLAIN_LAWS_H
#define TS_VIZ_EXPLAIN_LAWS_H

#include <stddef.h>
#include <stdio.h>

#include "engine/time.h"

/* The service a class's program asks of one queue: its moments. */
typedef struct ts_law_service {
  double mean, var;  /* ns, ns^2 */
  int terms;         /* cpu steps with a nonzero mean (several classes mixed: the classes) */
  int exponential;   /* one term, exponential */
  const char *kind;  /* the distribution of the last term (NULL: mixed over classes) */
  double cv;         /* of the sum */
} ts_law_service;

/* ns as milliseconds with 4 significant digits into buf. */
void ts_law_ms(char *buf, size_t cap, double ns);

/* "what" (a plural noun: "jobs", "calls") for a simulated mean over n, in
 * the singular when n is 1, with a warning when n is fewer than 1000 (far
 * from a steady state), into buf; returns buf. */
const char *ts_law_short_run(char *buf, size_t cap, int n, const char *what);

/* The mean wait of one queue shared by c servers of service s fed by a
 * Poisson stream of lambda (rho < 1): Erlang C's for exponential service,
 * else the Allen-Cunneen approximation, Erlang C's wait times (1 + cv^2) / 2. */
double ts_law_shared_wait(int c, double lambda, const ts_law_service *s);

/* The closed form for a queue of c servers with Poisson arrivals at lambda
 * and service s, first come first served: Pollaczek-Khinchine (c = 1),
 * Erlang C (exponential), Allen-Cunneen (labelled an approximation); or
 * that rho >= 1 leaves no steady state. Beside the simulated mean wait
 * (sim over n of what). */
void ts_law_closed(FILE *out, int c, double lambda, const ts_law_service *s, double sim, int n, const char *what);

/* M/G/1 processor sharing, which round robin by time approaches as its
 * slice q shrinks: the mean wait rho E[S] / (1 - rho) whatever the
 * service's distribution (Kleinrock, Queueing Systems vol. 2, 1976, sec.
 * 4.4), beside the simulated mean wait sim over n jobs. */
void ts_law_sharing(FILE *out, double lambda, const ts_law_service *s, ts_time q, double sim, int n);

/* M^X/G/1: Poisson batches (lambda_b) of X jobs (E[X] ex, E[X^2] ex2), one
 * server in arrival order: a job waits for its batch, lambda_b E[X] E[S^2]
 * / (2 (1 - rho)), then for the jobs ahead of it in its batch, E[S] (E[X^2]
 * - E[X]) / (2 E[X] (1 - rho)) (Gross and Harris, Fundamentals of Queueing
 * Theory, sec. 3.2); beside the simulated mean wait sim over n jobs. */
void ts_law_batch(FILE *out, double lambda_b, double ex, double ex2, const ts_law_service *s, double sim, int n);

/* M/M/c/K: Poisson arrivals (lambda), exponential service of mean es, c
 * servers and at most k jobs in all; an arrival that finds k is dropped.
 * P(block) = p_k and the admitted jobs' mean wait Lq / (lambda (1 - p_k))
 * (Gross and Harris, sec. 2.5, 2.6; k = c: Erlang's loss system), beside
 * the simulated share dropped (dropped of arrived) and the simulated mean
 * wait sim over n of what. Any load: a finite queue is stable. */
void ts_law_finite(FILE *out, double lambda, double es, int c, int k, int dropped, int arrived, double sim, int n,
                   const char *what);

/* M/M/c+M (Erlang-A): Poisson calls (lambda), exponential service of mean
 * es on c servers, each waiting caller giving up after an exponential
 * patience of mean patience. The number in the system is a birth-death
 * chain (births lambda, deaths min(n, c) / es + max(n - c, 0) / patience),
 * summed until its terms vanish: the share who give up Lq / (lambda
 * patience) and every caller's mean wait (until served or gone) Lq /
 * lambda (Little's law; Garnett, Mandelbaum and Reiman, "Designing a call
 * center with impatient customers", 2002), beside the simulated share (gave_up
 * of arrived) and mean wait sim over the arrived. Any load: impatience
 * keeps the queue stable. */
void ts_law_abandon(FILE *out, double lambda, double es, double patience, int c, int gave_up, int arrived, double sim);

/* GI/M/1's mean wait with Erlang-c interarrival times (each worker's under
 * round-robin dispatch of a Poisson stream of lambda: every c-th arrival)
 * and exponential service of mean es (rho = lambda es / c < 1): sigma E[S]
 * / (1 - sigma), sigma the root in (0, 1) of sigma = A*(mu (1 - sigma))
 * (Kleinrock, Queueing Systems vol. 1, 1975, sec. 6.4), by GSL's Brent
 * solver; NAN when it does not converge. */
double ts_law_erlang_m1_wait(double lambda, double es, int c);

/* One server fed one job every period without jitter, first come first
 * served: D/M/1 with exponential service (GI/M/1: sigma E[S] / (1 -
 * sigma), sigma the root in (0, 1) of sigma = exp(-(1 - sigma) period /
 * E[S])), beside M/M/1 at the same load; D/D/1 with fixed service, where no
 * job waits while E[S] <= period (the caller refuses any other service);
 * or that rho >= 1 leaves no steady state. Beside the simulated mean wait
 * sim over n jobs. */
void ts_law_periodic(FILE *out, double period, const ts_law_service *s, double sim, int n);

#endif
