import { describe, expect, it } from 'vitest';
import { errorMessage } from './client';

describe('errorMessage', () => {
  it('drops the request name the engine puts in front, and keeps the rest', () => {
    expect(errorMessage(new Error('labels/create-queue: no match "M9" in this lab'))).toBe('no match "M9" in this lab');
    expect(errorMessage(new Error('scenarios/save: Scenario: expected a scenario object (field "scenario")'))).toBe('Scenario: expected a scenario object.');
    expect(errorMessage('the engine is closed')).toBe('the engine is closed');
  });

  it("shows the engine's plain sentences without the exact field paths it adds for scripts", () => {
    expect(
      errorMessage(
        new Error('studies/start: Custom arm 1 › name must not be empty (field "customArms.0.name"); Seeds needs at least one entry (field "seeds")'),
      ),
    ).toBe('Custom arm 1 › name must not be empty. Seeds needs at least one entry.');
  });
});
