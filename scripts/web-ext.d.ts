/** The part of web-ext's programmatic API that `npm start` uses; the package ships no types. */
declare module 'web-ext' {
  interface Runner {
    registerCleanup(fn: () => void): void;
    exit(): Promise<void>;
  }
  const webExt: {
    cmd: {
      run(
        params: { sourceDir: string; firefox: string; startUrl: string[]; args: string[]; noReload: boolean; noInput: boolean },
        options: { shouldExitProgram: boolean },
      ): Promise<Runner>;
    };
  };
  export default webExt;
}
