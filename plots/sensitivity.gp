# Virtual-speedup curves of `tssim sensitivity`: the metric with each
# parameter scaled (what if this cost were 10%, 20% ... cheaper), one panel
# per sweep point and metric (at most 16), one line per parameter, with the
# 95% half-width of each mean as an error bar.
#
# tssim sensitivity draws this beside curve.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/zero-cache-wave-sensitivity'" plots/sensitivity.gp
# Variables (all optional): dir, png, svg, title, axes (the scenario's axis
# keys), points ('"n=8 workers=1" ...': the panels' points, named as
# "key=label ... n=N workers=W"), metrics ('wave_ms ...'), params ('hydration
# params.tracker_ms ...'); without points, metrics or params every row of
# curve.csv goes into one panel, one line per parameter named in params.
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/sensitivity.png"
if (!exists("svg")) svg = dir."/sensitivity.svg"
if (!exists("title")) title = "tssim"
if (!exists("axes")) axes = ""
if (!exists("points")) points = ""
if (!exists("metrics")) metrics = ""
if (!exists("params")) params = ""
file = dir."/curve.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

# the point a row belongs to, named as in points
ax(i) = i > words(axes) ? "" : word(axes, i)."=".strcol(word(axes, i))." ".ax(i + 1)
lbl(x) = ax(1).sprintf("n=%d workers=%d", column("n"), column("workers"))
np = words(points) > 0 ? words(points) : 1
nm = words(metrics) > 0 ? words(metrics) : 1
panels = np * nm > 16 ? 16 : np * nm
P(k) = word(points, (k - 1) / nm + 1)
M(k) = word(metrics, (k - 1) % nm + 1)
sel(k, j) = (words(points) == 0 || lbl(0) eq P(k)) && (words(metrics) == 0 || strcol("metric") eq M(k)) && \
            (words(params) == 0 || strcol("parameter") eq word(params, j))
cols = panels <= 1 ? 1 : panels <= 4 ? 2 : panels <= 9 ? 3 : 4
rows = (panels + cols - 1) / cols
nlines = words(params) > 0 ? words(params) : 1
PL(j) = words(params) > 0 ? word(params, j) : "all"

set xlabel "scale of the parameter (1 = as modelled)"
set key bottom right box opaque
set grid
set xrange [0 : *]
set yrange [0 : *]

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 700 * cols, 480 * rows font "sans,11" noenhanced
} else {
  set terminal png size 700 * cols, 480 * rows noenhanced
}
do for [out = 1:2] {
  if (out == 2) { set terminal svg size 700 * cols, 480 * rows dynamic font "sans,11" noenhanced }
  set output (out == 1 ? png : svg)
  set multiplot layout rows, cols title title.": the metric with each parameter scaled (virtual speedup)"
  do for [k = 1:panels] {
    set title (words(points) > 0 ? P(k) : "every point").(words(metrics) > 0 ? ": ".M(k) : "")
    set ylabel (words(metrics) > 0 ? M(k) : "value")
    plot for [j = 1:nlines] file using "scale":(sel(k, j) ? column("value") : NaN):(sel(k, j) ? (column("value_ci95") == column("value_ci95") ? column("value_ci95") : 0) : NaN) \
           with yerrorlines lw 2 pt 7 ps 1 lc j title PL(j)
  }
  unset multiplot
  set output
}
