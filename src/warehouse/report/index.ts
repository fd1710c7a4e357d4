/** The market report: charts of the SQL models in one self-contained HTML file. */
export {
  buildReport,
  onReport,
  type ReportOptions,
  type ReportProgress,
  type ReportSummary,
} from './build-report.js';
export { CHART_IDS, type ChartId } from './read-report.js';
export { isWindow } from './report-window.js';
