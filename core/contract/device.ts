/**
 * The device vocabulary (execution providers, what a user may ask for, the device a run used) as
 * the contract's clients see it; it lives in core/device.ts, which the run config reads too.
 */
export * from '../device';
