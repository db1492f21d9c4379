import { floorVersion, imageMajor, ltsVersion, refusing } from './engines';

/** Every installed package runs on both Node lines the project supports (issue: a dependency that already warns on the floor). */
describe('Node versions', () => {
  it('the floor is Node 20.19 and CI checks the LTS line the images run', () => {
    expect(floorVersion()).toBe('20.19.0');
    expect(Number(ltsVersion().split('.')[0])).toBe(imageMajor());
    expect(imageMajor()).toBeGreaterThanOrEqual(24);
  });

  it.each([['floor', floorVersion()], ['LTS', ltsVersion()]])("no installed package's engines refuse the %s (%s)", (_name: string, version: string) => {
    expect(refusing(version)).toEqual([]);
  });

  it('would name a package that refuses a version (the check can fail)', () => {
    expect(refusing('18.0.0').length).toBeGreaterThan(0);
  });
});
