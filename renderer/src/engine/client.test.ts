import { describe, expect, it } from 'vitest';
import { errorMessage } from './client';

describe('errorMessage', () => {
  it('drops the request name the engine puts in front, and keeps the rest', () => {
    expect(errorMessage(new Error('labels/create-queue: no match "M9" in this lab'))).toBe('no match "M9" in this lab');
    expect(errorMessage(new Error('scenarios/save: field "scenario": expected a scenario object'))).toBe('field "scenario": expected a scenario object');
    expect(errorMessage('the engine is closed')).toBe('the engine is closed');
  });
});
