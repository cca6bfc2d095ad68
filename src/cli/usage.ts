/** Usage lines shared by the commands that print them; the replay server's own module is loaded only to replay. */
export const REPLAY_USAGE = `  agui-inspector replay <recording.har> [--port N] [--host 127.0.0.1] [--speed 1|max|<factor>]
                                  answer an app's AG-UI requests with the recorded responses`;
