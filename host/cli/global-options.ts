/**
 * The options every `sparring` command takes (main.ts declares them on the program; each command
 * reads them through the `globals` function it is registered with).
 */
export interface GlobalOptions {
  db: string;
  seed: number;
  json: boolean;
  /** Create the folder of --db when it is missing (otherwise refused, except for the data directory's lab). */
  create?: boolean;
  /** false with --no-cache: LLM calls skip the lab's response cache (new answers are still stored). */
  cache?: boolean;
}
