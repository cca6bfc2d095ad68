/**
 * `npm run bench`: runs every benchmark module and prints its tables. A new benchmark (capture
 * throughput in the browser, panel rendering) is a module exporting a `Benchmark`, added to the list.
 */
import { throughput } from './analyzer.ts';
import { CAPTURE_NOTES, CAPTURE_TITLE, captureBench } from './capture.ts';
import { SOCKET_CAPTURE_NOTES, SOCKET_CAPTURE_TITLE, socketCaptureBench } from './capture-socket.ts';
import { changeBench } from './change.ts';
import { memory } from './memory.ts';
import { overviewBench } from './overview.ts';
import { PANEL_TITLE, panelBench } from './panel.ts';
import { processBench } from './process.ts';
import { reduceBench } from './reduce.ts';
import { formatSection, measuresSection, type Benchmark } from './report.ts';
import { runTreeBench } from './run-tree.ts';
import { scaling } from './scaling.ts';
import { timingBench } from './timing.ts';
import { TOOLS_TITLE, toolsBench } from './tools.ts';
import { WORKER_TITLE, workerBench } from './worker.ts';

const BENCHMARKS: [string, Benchmark][] = [
  ['analyzer throughput', throughput],
  ['whole-process CLI', processBench],
  ['analyzer memory', memory],
  ['analyzer scaling', scaling],
  ['reduce', reduceBench],
  ['timing', timingBench],
  ['change', changeBench],
  ['run tree', runTreeBench],
  ['overview', overviewBench],
  ['capture overhead', async () => [measuresSection(CAPTURE_TITLE, await captureBench(), CAPTURE_NOTES)]],
  ['socket capture overhead', async () => [measuresSection(SOCKET_CAPTURE_TITLE, await socketCaptureBench(), SOCKET_CAPTURE_NOTES)]],
  ['panel rendering', async () => [measuresSection(PANEL_TITLE, await panelBench())]],
  ['tools view', async () => [measuresSection(TOOLS_TITLE, await toolsBench())]],
  ['worker responsiveness', async () => [measuresSection(WORKER_TITLE, await workerBench())]],
];

const only = process.argv.slice(2);
console.log(`# AG-UI Inspector benchmarks — node ${process.version}, ${process.platform}/${process.arch}`);
for (const [name, bench] of BENCHMARKS) {
  if (only.length > 0 && !only.some((o) => name.includes(o))) continue;
  for (const section of await bench()) console.log(`\n${formatSection(section)}`);
}
