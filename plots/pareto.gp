# The Pareto front of `tssim optimize` with two objectives: every setting
# tried (feasible ones in gray, infeasible ones as red crosses, the
# scenario's own setting as a black star) and the front, the feasible
# settings no other feasible one beats in both objectives, joined in order.
#
# tssim optimize draws this beside pareto.csv (the script is compiled into tssim).
# By hand:  gnuplot -e "dir='results/x-optimize'; xmetric='wave_ms@joiner'; ymetric='wave_ms@viewsyncer'" plots/pareto.gp
# Variables: dir, png, svg, title (optional); xmetric, ymetric (the two
# objectives, columns of tried.csv and pareto.csv).
if (!exists("dir")) dir = "."
if (!exists("png")) png = dir."/pareto.png"
if (!exists("svg")) svg = dir."/pareto.svg"
if (!exists("title")) title = "tssim"
tried = dir."/tried.csv"
front = dir."/pareto.csv"
set datafile separator ","
set datafile columnheaders
set datafile missing NaN

base(v) = strcol("stage") eq "baseline" ? v : NaN
feas(v) = strcol("stage") ne "baseline" && column("feasible") == 1 ? v : NaN
infeas(v) = strcol("stage") ne "baseline" && column("feasible") == 0 ? v : NaN
set title title.": Pareto front of ".xmetric." and ".ymetric
set xlabel xmetric
set ylabel ymetric
set key outside right top box opaque
set grid

# draw: PNG (pngcairo when available, else libgd's png), then SVG
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000, 640 font "sans,11" noenhanced
} else {
  set terminal png size 1000, 640 noenhanced
}
set output png
plot tried using (column(xmetric)):(feas(column(ymetric))) with points pt 7 ps 0.8 lc rgb "gray60" title "feasible", \
     tried using (column(xmetric)):(infeas(column(ymetric))) with points pt 2 ps 0.8 lc rgb "red" title "infeasible", \
     front using (column(xmetric)):(column(ymetric)) with linespoints lw 2 pt 5 ps 1.2 lc rgb "blue" title "Pareto front", \
     tried using (column(xmetric)):(base(column(ymetric))) with points pt 3 ps 2.5 lw 2 lc rgb "black" title "scenario's setting"
set terminal svg size 1000, 640 dynamic font "sans,11" noenhanced
set output svg
replot
set output
