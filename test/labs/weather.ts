/**
 * The frontend tool of the pages that run CopilotKitCore: the scripted model calls it by name
 * (`showWeather`), and CopilotKit runs its handler in the page and sends the result back.
 */
import { z } from 'zod';

export const WEATHER_TOOL = {
  name: 'showWeather',
  description: 'Shows the weather for a city in the page',
  parameters: z.object({ city: z.string() }),
  handler: async ({ city }: { city: string }) => ({ city, sky: 'sunny', celsius: 21 }),
};
