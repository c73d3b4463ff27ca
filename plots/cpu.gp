# Per-group CPU vs N: the slice-timer CPU (per_group_cpu_ms: time-sliced
# steps, stopped while queued) and all CPU an actor ran (cpu_ms), per worker
# count and class, with the recorded per-group CPU when there is a baseline.
# Flat lines are the point: CPU per group does not grow with N.
#
# tssim run draws this beside summary.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/rr-wave'" plots/cpu.gp
# Variables (all optional): dir, png, svg, title, workers ("1 8": worker
# counts), classes ("job": class names), rec_workers (worker counts that have
# recorded values of this plot's metric; needs recorded_* columns), axes
# ("policy load": the scenario's axis keys, summary.csv's columns before n),
# nseries and series_1 .. series_<nseries> (the axis combinations, each
# "key=label ...": one line per combination; without axes one, ""), rec_lines
# ("1 8 2 8": series index and worker count of each recorded line, in pairs).
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/cpu.png"
if (!exists("svg")) svg = dir."/cpu.svg"
if (!exists("workers")) workers = "1"
if (!exists("classes")) classes = ""
if (!exists("rec_workers")) rec_workers = ""
if (!exists("title")) title = "tssim"
if (!exists("axes")) axes = ""
if (!exists("nseries")) nseries = 1
if (!exists("series_1")) series_1 = ""
if (!exists("rec_lines")) rec_lines = ""
file = dir."/summary.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

onecls = words(classes) <= 1
ncls = onecls ? 1 : words(classes)
# a row's axis combination, named as series_<s> names it: "key=label ..."
rowser(i) = i > words(axes) ? "" : word(axes, i)."=".strcol(word(axes, i)).(i < words(axes) ? " " : "").rowser(i + 1)
SER(s) = value(sprintf("series_%d", s))
insel(s) = nseries <= 1 || rowser(1) eq SER(s)
sel(s, w, c) = column("workers") == w && (onecls || strcol("class") eq c) && insel(s)
lab(s, w, c) = SER(s).(SER(s) eq "" ? "" : " ").sprintf("W=%d%s", w, onecls || c eq "" ? "" : " ".c)
W(i) = word(workers, i) + 0
C(j) = word(classes, j)
nw = words(workers)
LC(s, i, j) = ((s - 1) * nw + i - 1) * ncls + j
nrec = words(rec_lines) / 2
RS(k) = k <= nrec ? word(rec_lines, 2 * k - 1) + 0 : 1  # (an empty loop still evaluates its title)
RW(k) = k <= nrec ? word(rec_lines, 2 * k) + 0 : 0
# DEF[j]: the rows of class j (of C(j)) that have a value to draw. Where no row has one (a horizon
# before the first group arrived) the chart says why it is empty in its title and draws an empty frame:
# gnuplot fails on a plot without a point ("all points y value undefined"); a class without one is
# named in the title, not in the key (DT: a clause's title, none for such a class's)
cidx(c, j) = j > ncls ? 0 : C(j) eq c ? j : cidx(c, j + 1)
array DEF[ncls]
do for [j = 1:ncls] { DEF[j] = 0 }
defd(k) = k < 1 || (column("per_group_cpu_ms") != column("per_group_cpu_ms") && column("cpu_ms") != column("cpu_ms")) ? 0 : (DEF[k] = DEF[k] + 1)
stats file using (defd(onecls ? 1 : cidx(strcol("class"), 1)), column("n")) nooutput
ndef = 0
undrawn = ""
DT(j, t) = DEF[j] == 0 ? "" : t
do for [j = 1:ncls] { ndef = ndef + DEF[j]; if (DEF[j] == 0) { undrawn = undrawn.(undrawn eq "" ? "" : ", ").C(j) } }
nmin = STATS_min
nmax = STATS_max
wide = nmax / nmin >= 50
if (wide) { set logscale x; set xrange [nmin * 0.8 : nmax * 1.25] } else { set xrange [0 : nmax * 1.05] }
# one N: its point in the middle over its one tick (not at the edge of 0 to 1 in fractions); a few: whole ticks
if (nmin == nmax) { set xrange [nmin * 0.5 : nmin * 1.5]; set xtics (nmin) } else { if (!wide && nmax < 10) { set xtics 1 } }
LP = nmin == nmax ? "points" : "linespoints"  # (one N: a line would be a point; the key shows none)
set yrange [0 : *]
set offsets 0, 0, graph 0.1, 0
why = "no group arrived before the run ended (per_group_cpu_ms and cpu_ms are empty)"
set title title.": CPU per group vs N (median over groups)". \
          (ndef == 0 ? (nrec == 0 ? "\nnothing to draw: " : "\nnothing simulated: ").why : \
           onecls || undrawn eq "" ? "" : \
           sprintf("\nnot drawn, no group arrived before the run ended: class%s ", strstrt(undrawn, ",") ? "es" : "").undrawn)
set xlabel "N (groups)"
set ylabel "CPU per group (ms)"
set key outside right top box
set grid

# many combinations: the key beside the plot, the canvas wider for long labels
maxlab = 0
do for [s = 1:nseries] { maxlab = strlen(SER(s)) > maxlab ? strlen(SER(s)) : maxlab }
cw = nseries > 1 && nseries * nw * ncls > 4 ? 1000 + (maxlab > 20 ? 7 * (maxlab - 20) : 0) : 1000

# the recorded lines, in the plot only when there are some: gnuplot reads the data of an empty
# loop's clause all the same (and warns that it has no valid points)
rec = nrec == 0 ? "" : ', for [k = 1:nrec] \
       file using "n":(column("workers") == RW(k) && insel(RS(k)) ? column("recorded_per_group_cpu_ms") : NaN) \
       with '.LP.' dt 3 pt 6 ps 2 lw 2 lc rgb "black" title "recorded ".lab(RS(k), RW(k), "")'

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size cw, 640 font "sans,11" noenhanced
} else {
  set terminal png size cw, 640 noenhanced
}
set output png
# nothing to draw: an empty frame, 0 to 1 ms over the N axis (a plot of the data would fail)
empty = ndef == 0 && nrec == 0
if (empty) { unset key; unset logscale y; set yrange [0 : 1]; plot NaN notitle } else {
plot for [s = 1:nseries] for [i = 1:nw] for [j = 1:ncls] \
       file using "n":(sel(s, W(i), C(j)) ? column("per_group_cpu_ms") : NaN) \
       with @LP lw 2 pt (5 + 2 * j) ps 1.2 lc LC(s, i, j) title DT(j, "slice-timer CPU ".lab(s, W(i), C(j))), \
     for [s = 1:nseries] for [i = 1:nw] for [j = 1:ncls] \
       file using "n":(sel(s, W(i), C(j)) ? column("cpu_ms") : NaN) \
       with @LP dt 2 lw 1.5 pt (4 + 2 * j) lc LC(s, i, j) title DT(j, "all CPU ".lab(s, W(i), C(j))) @rec
}
set terminal svg size cw, 640 dynamic font "sans,11" noenhanced
set output svg
replot
set output
