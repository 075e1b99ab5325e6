// The landing policy (FastPixSeekPolicy) is the core's innermost part: everything that
// imports the core sees its types (MediaTime, FrameGrid, LandingRequest, the Lander...).
@_exported import FastPixSeekPolicy
