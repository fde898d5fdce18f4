package lake

// SetBeforeManifest sets the hook that runs before a bucket write tries to
// replace the manifest (nil: none).
func SetBeforeManifest(f func(attempt int)) { testHookBeforeManifest = f }
