import { describe, expect, it } from 'vitest';
import { javaMajorVersion, pickNewestJdk } from './java.ts';

describe('JDK selection for the registry', () => {
  it('reads the major version from a release file', () => {
    expect(javaMajorVersion('IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="25.0.3"\n')).toBe(25);
    expect(javaMajorVersion('JAVA_VERSION="17.0.15"')).toBe(17);
    expect(javaMajorVersion('JAVA_VERSION="1.8.0_402"')).toBe(8);
    expect(javaMajorVersion('IMPLEMENTOR="x"')).toBeUndefined();
  });

  it('picks the newest JDK at or above the minimum', () => {
    const candidates = [
      { home: '/jvm/java-17-openjdk-amd64', release: 'JAVA_VERSION="17.0.15"' },
      { home: '/jvm/temurin-21-jdk-amd64', release: 'JAVA_VERSION="21.0.9"' },
      { home: '/jvm/temurin-25-jdk-amd64', release: 'JAVA_VERSION="25.0.3"' },
      { home: '/jvm/broken', release: '' },
    ];
    expect(pickNewestJdk(candidates, 21)).toBe('/jvm/temurin-25-jdk-amd64');
  });

  it('finds none when every JDK is too old', () => {
    expect(pickNewestJdk([{ home: '/jvm/java-17', release: 'JAVA_VERSION="17.0.15"' }], 21)).toBeUndefined();
  });
});
