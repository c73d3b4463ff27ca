# The time-slice queue vs N: queue_depth (actors already waiting when an
# actor enters a worker's time-slice queue, mean; the most as points) on the
# left axis and slice_wait_ms (entering the queue to being resumed, mean) on
# the right, per worker count. Round robin with m actors per worker: the
# depth approaches m - 1 and the wait (m - 1) slices.
#
# tssim run draws this beside summary.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/zero-cache-wave'" plots/queue.gp
# Variables (all optional): dir, png, svg, title, workers ("1 8": worker
# counts), classes and rec_workers (unused: the queue metrics are per worker,
# the same on every class row), axes ("policy load": the scenario's axis
# keys, summary.csv's columns before n), nseries and series_1 ..
# series_<nseries> (the axis combinations, each "key=label ...": one set of
# lines per combination; without axes one, "").
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/queue.png"
if (!exists("svg")) svg = dir."/queue.svg"
if (!exists("workers")) workers = "1"
if (!exists("classes")) classes = ""
if (!exists("title")) title = "tssim"
if (!exists("axes")) axes = ""
if (!exists("nseries")) nseries = 1
if (!exists("series_1")) series_1 = ""
file = dir."/summary.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

first = word(classes, 1)
# a row's axis combination, named as series_<s> names it: "key=label ..."
rowser(i) = i > words(axes) ? "" : word(axes, i)."=".strcol(word(axes, i)).(i < words(axes) ? " " : "").rowser(i + 1)
SER(s) = value(sprintf("series_%d", s))
sel(s, w) = column("workers") == w && (words(classes) <= 1 || strcol("class") eq first) && \
            (nseries <= 1 || rowser(1) eq SER(s))
lab(s, w) = SER(s).(SER(s) eq "" ? "" : " ").sprintf("W=%d", w)
W(i) = word(workers, i) + 0
nw = words(workers)
ncls = 1
stats file using "n" nooutput
nmin = STATS_min
nmax = STATS_max
wide = nmax / nmin >= 50
if (wide) { set logscale x; set xrange [nmin * 0.8 : nmax * 1.25] } else { set xrange [0 : nmax * 1.05] }
# one N: its point in the middle over its one tick (not at the edge of 0 to 1 in fractions); a few: whole ticks
if (nmin == nmax) { set xrange [nmin * 0.5 : nmin * 1.5]; set xtics (nmin) } else { if (!wide && nmax < 10) { set xtics 1 } }
LP = nmin == nmax ? "points" : "linespoints"  # (one N: a line would be a point; the key shows none)
set yrange [0 : *]
set y2range [0 : *]
set ytics nomirror
set y2tics
set title title.": the time-slice queue vs N"
set xlabel "N (groups)"
set ylabel "actors waiting when one enters the queue"
set y2label "slice wait: entering the queue to resumed (ms)"
set key outside right top box
set grid

# many combinations: the key beside the plot, the canvas wider for long labels
maxlab = 0
do for [s = 1:nseries] { maxlab = strlen(SER(s)) > maxlab ? strlen(SER(s)) : maxlab }
cw = nseries > 1 && nseries * nw * ncls > 4 ? 1000 + (maxlab > 20 ? 7 * (maxlab - 20) : 0) : 1000

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size cw, 640 font "sans,11" noenhanced
} else {
  set terminal png size cw, 640 noenhanced
}
set output png
plot for [s = 1:nseries] for [i = 1:nw] \
       file using "n":(sel(s, W(i)) ? column("queue_depth") : NaN) \
       with @LP lw 2 pt 7 lc ((s - 1) * nw + i) title "queue depth ".lab(s, W(i)), \
     for [s = 1:nseries] for [i = 1:nw] \
       file using "n":(sel(s, W(i)) ? column("queue_depth_max") : NaN) \
       with points pt 6 ps 1.2 lc ((s - 1) * nw + i) title "most waiting ".lab(s, W(i)), \
     for [s = 1:nseries] for [i = 1:nw] \
       file using "n":(sel(s, W(i)) ? column("slice_wait_ms") : NaN) axes x1y2 \
       with @LP dt 2 lw 1.5 pt 5 lc ((s - 1) * nw + i) title "slice wait ".lab(s, W(i))
set terminal svg size cw, 640 dynamic font "sans,11" noenhanced
set output svg
replot
set output
