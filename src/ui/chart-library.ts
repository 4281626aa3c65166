/**
 * Only the parts of Chart.js the two kinds of chart use, registered once. Imported by name (and
 * this module loaded on demand) so the bundler leaves the rest of Chart.js out.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LineController, LineElement, LinearScale, PointElement, Tooltip } from 'chart.js';

Chart.register(BarController, LineController, BarElement, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

export { Chart };
