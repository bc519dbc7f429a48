"""The trainer's class view in a browser, served by the class server's own process and event loop
(`class serve --web-port N`): the class as tiles updated live, a trainee's timeline, lab and
actions, the class's summary, and the grades and transcripts to download.

- `views`: the data of each page, from the room and record (the class console's functions);
- `events`: the change feed (the room's listeners) fanned out to the pages' event streams;
- `app`: the Starlette application: login, session, CSRF, refusals, pages, actions;
- `serve`: uvicorn's server started inside the running loop.
"""
