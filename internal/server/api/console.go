package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd/internal/authn"
	"ragd/internal/server/console"
)

// mountConsole serves the web console at /ui/ and, with auth, its login,
// logout and session endpoints. They are no API routes: the OpenAPI
// document leaves them out.
func mountConsole(e *echo.Echo, a *authn.Authenticator) {
	files := echo.WrapHandler(console.Handler())
	e.GET(console.Prefix, func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, console.Prefix+"/")
	})
	e.GET(console.Prefix+"/*", files)
	if a == nil {
		// No authenticator at all: nothing to log in to.
		e.GET(authn.SessionPath, func(c echo.Context) error {
			return c.JSON(http.StatusOK, authn.SessionInfo{Mode: authn.ModeDisabled, LoggedIn: true, Operator: true})
		})
		return
	}
	e.GET(authn.SessionPath, echo.WrapHandler(a.SessionHandler()))
	e.POST(authn.LoginPath, echo.WrapHandler(a.LoginHandler()))
	e.POST(authn.LogoutPath, echo.WrapHandler(a.LogoutHandler()))
}
