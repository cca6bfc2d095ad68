/**
 * The frontend tool of the pages that run CopilotKitCore: page-api.ts's weather tool as CopilotKit
 * takes one, with a zod schema and a handler that CopilotKit runs in the page, sending its result back.
 */
import { z } from 'zod';
import { WEATHER_TOOL, weatherIn } from './page-api.ts';

export const COPILOTKIT_WEATHER_TOOL = {
  name: WEATHER_TOOL.name,
  description: WEATHER_TOOL.description,
  parameters: z.object({ city: z.string() }),
  handler: async ({ city }: { city: string }) => weatherIn(city),
};
