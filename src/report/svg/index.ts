// Pure SVG chart functions: typed data in, an escaped <svg> string out.
export { barChart, type BarChartInput, type BarSeries } from "./barChart.js";
export { heatmap, heatColor, type HeatmapInput } from "./heatmap.js";
export { scatterPlot, type ScatterInput, type ScatterPoint } from "./scatterPlot.js";
export { reliabilityDiagram, type ReliabilityInput, type ReliabilityBinData } from "./reliabilityDiagram.js";
export { dotPlot, type DotMark, type DotPlotInput, type DotPlotRow } from "./dotPlot.js";
export { reliabilityGrid, type ReliabilityGridInput, type ReliabilityPanel } from "./reliabilityGrid.js";
export { waitForGraphSvg } from "./waitForGraph.js";
export { timelineSvg, formatNs } from "./timeline.js";
