package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd/internal/auth"
	"ragd/internal/server/console"
)

// mountConsole serves the web console at /ui/ and, with auth, its login,
// logout and session endpoints. They are no API routes: the OpenAPI
// document leaves them out.
func mountConsole(e *echo.Echo, a *auth.Authenticator) {
	files := echo.WrapHandler(console.Handler())
	e.GET(console.Prefix, func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, console.Prefix+"/")
	})
	e.GET(console.Prefix+"/*", files)
	if a == nil {
		// No authenticator at all: nothing to log in to.
		e.GET(auth.SessionPath, func(c echo.Context) error {
			return c.JSON(http.StatusOK, auth.SessionInfo{Mode: auth.ModeDisabled, LoggedIn: true, Operator: true})
		})
		return
	}
	e.GET(auth.SessionPath, echo.WrapHandler(a.SessionHandler()))
	e.POST(auth.LoginPath, echo.WrapHandler(a.LoginHandler()))
	e.POST(auth.LogoutPath, echo.WrapHandler(a.LogoutHandler()))
}
