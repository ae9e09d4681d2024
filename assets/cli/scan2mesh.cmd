@echo off
rem The scan2mesh command line of the installed app: it runs in the app's own binary (RunAsNode is off).
rem This file is in <install folder>\resources\bin, which the installer can put on the PATH.
"%~dp0..\..\scan2mesh.exe" --scan2mesh-cli -- %*
exit /b %ERRORLEVEL%
