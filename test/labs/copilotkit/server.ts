/**
 * CopilotKit's runtime (CopilotRuntime with its default in-memory runner) serving one BuiltInAgent
 * on the scripted model, mounted twice as an app would: the REST endpoints under /api/copilotkit
 * and the single-route endpoint at /api/copilotkit-single.
 */
import { BuiltInAgent } from '@copilotkitnext/agent';
import { CopilotRuntime, createCopilotEndpoint, createCopilotEndpointSingleRoute } from '@copilotkitnext/runtime';
import { scriptedModel, toolParts } from '../model.ts';
import type { Handler } from '../server.ts';

export const FRONTEND_TOOL = 'showWeather';

export function copilotKitRoutes(): [string, Handler][] {
  const model = scriptedModel({
    frontendTool: FRONTEND_TOOL,
    // BuiltInAgent gives the model two state tools; it turns their results into STATE_SNAPSHOT and STATE_DELTA.
    remember: () => [
      ...toolParts('call-snapshot', 'AGUISendStateSnapshot', { snapshot: { likes: ['tea'], mood: 'calm' } }),
      ...toolParts('call-delta', 'AGUISendStateDelta', { delta: [{ op: 'replace', path: '/mood', value: 'curious' }] }),
    ],
  });
  const runtime = new CopilotRuntime({ agents: { default: new BuiltInAgent({ model }) } });
  const rest = createCopilotEndpoint({ runtime, basePath: '/api/copilotkit' });
  const single = createCopilotEndpointSingleRoute({ runtime, basePath: '/api/copilotkit-single' });
  return [
    ['/api/copilotkit-single', (req) => Promise.resolve(single.fetch(req))],
    ['/api/copilotkit/', (req) => Promise.resolve(rest.fetch(req))],
  ];
}
